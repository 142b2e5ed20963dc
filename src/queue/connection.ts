import type { Writable } from 'node:stream';
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

/**
 * Connection for workers: BullMQ's blocking commands require `maxRetriesPerRequest: null`.
 * Commands sent in one turn of the event loop (many jobs at once; a step's data, log lines and
 * move to delayed) leave in one write (`combineWrites`).
 */
export function createWorkerConnection(target: RedisTopology | string): Redis {
  const redis = connect(target, { maxRetriesPerRequest: null });
  combineWrites(redis);
  return redis;
}

const COMBINED = Symbol('pod-bouncer.combinedWrites');

/**
 * Holds a connection's writes until the event loop's next turn, so that every command sent
 * meanwhile leaves in one write (writev) instead of one syscall each: a worker sends several
 * commands per step at once, and a write costs far more CPU than the command in it. Unlike
 * ioredis's auto-pipelining, nothing is built per batch. Commands wait at most for the current
 * turn to end; their order is kept. (A Cluster client has a stream per node: left as it is.)
 */
export function combineWrites(redis: Redis): void {
  const wrap = (): void => {
    const stream = (redis as Partial<Redis>).stream as
      (Writable & { [COMBINED]?: true }) | undefined;
    if (stream === undefined || stream[COMBINED] === true) return;
    stream[COMBINED] = true;
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    let held = false;
    stream.write = ((...args: unknown[]): boolean => {
      if (!held) {
        held = true;
        stream.cork();
        setImmediate(() => {
          held = false;
          stream.uncork();
        });
      }
      return write(...args);
    }) as Writable['write'];
  };
  redis.on('connect', wrap);
  wrap();
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
