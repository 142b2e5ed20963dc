import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { clusterOptions, redisOptions, type RedisTopology } from './redis-topology.js';

/** A plain URL is a standalone Redis (what tests and the demo pass). */
function topologyOf(target: RedisTopology | string): RedisTopology {
  if (typeof target !== 'string') return target;
  return {
    kind: 'standalone',
    url: target,
    auth: { username: undefined, password: undefined, tls: false },
  };
}

/**
 * One client of the role's kind on any topology. A Cluster client is handed out typed as `Redis`:
 * ioredis's `Cluster` answers the same commands pod-bouncer sends (ping, exists, set, scan per node
 * aside) and BullMQ accepts it as a connection; consumers typed on `Redis` stay unchanged.
 */
function connect(target: RedisTopology | string, extra: RedisOptions): Redis {
  const topology = topologyOf(target);
  if (topology.kind === 'cluster') {
    const nodes = topology.nodes.map(({ host, port }) => ({ host, port }));
    return new Cluster(nodes, clusterOptions(topology, extra)) as unknown as Redis;
  }
  const options = redisOptions(topology, extra);
  return topology.kind === 'standalone' ? new Redis(topology.url, options) : new Redis(options);
}

/**
 * Connection for request paths (ingest, admin): fail fast when Redis is down instead of queueing
 * commands in memory, so the caller can answer 503 at once and nothing is half-enqueued.
 */
export function createProducerConnection(target: RedisTopology | string): Redis {
  return connect(target, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    lazyConnect: false,
  });
}

/** Connection for workers: BullMQ's blocking commands require `maxRetriesPerRequest: null`. */
export function createWorkerConnection(target: RedisTopology | string): Redis {
  return connect(target, { maxRetriesPerRequest: null });
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
