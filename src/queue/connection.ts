import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connection for request paths (ingest, admin): fail fast when Redis is down instead of queueing
 * commands in memory, so the caller can answer 503 at once and nothing is half-enqueued.
 */
export function createProducerConnection(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    lazyConnect: false,
  } satisfies RedisOptions);
}

/** Connection for workers: BullMQ's blocking commands require `maxRetriesPerRequest: null`. */
export function createWorkerConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null } satisfies RedisOptions);
}

/**
 * Resolves once the connection is ready, or after `timeoutMs` regardless: a fail-fast producer
 * refuses commands while it is still connecting, so callers wait for the first connection, but a
 * Redis that is down at start-up must not keep the process from starting (readiness reports it).
 */
export async function readyOrTimeout(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish(false), timeoutMs);
    const onReady = (): void => finish(true);
    function finish(ready: boolean): void {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    }
    redis.once('ready', onReady);
  });
}
