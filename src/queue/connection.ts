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
