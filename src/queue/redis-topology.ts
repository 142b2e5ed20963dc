import type { ClusterOptions, RedisOptions } from 'ioredis';

/**
 * Where the queue lives: one Redis (`REDIS_URL`), a Sentinel-watched primary (`REDIS_SENTINELS`)
 * or a Redis Cluster (`REDIS_CLUSTER_NODES`). Read once at start-up (config/redis.ts); the
 * connection factories turn it into ioredis clients. Secrets stay in here and are never logged:
 * `describeTopology` is what logs see.
 */
export type RedisTopology = StandaloneTopology | SentinelTopology | ClusterTopology;

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** Credentials and TLS of the data nodes (not the sentinels). */
export interface RedisAuth {
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly tls: boolean;
}

export interface StandaloneTopology {
  readonly kind: 'standalone';
  /** `redis://` or `rediss://`; credentials in the URL win over `auth`. */
  readonly url: string;
  readonly auth: RedisAuth;
}

export interface SentinelTopology {
  readonly kind: 'sentinel';
  readonly sentinels: readonly HostPort[];
  /** The master group name the sentinels monitor (`sentinel monitor <name> …`). */
  readonly name: string;
  readonly sentinelPassword: string | undefined;
  readonly auth: RedisAuth;
}

export interface ClusterTopology {
  readonly kind: 'cluster';
  /** Seed nodes: any reachable one tells the client the whole slot map. */
  readonly nodes: readonly HostPort[];
  readonly auth: RedisAuth;
}

/**
 * Redis Cluster hashes only the part of a key between the first `{` and the next `}` (when it is
 * not empty). BullMQ runs multi-key Lua scripts over a job, its queue lists and its parent, so all
 * of them must hash alike: the prefix every key starts with must carry such a tag.
 */
export function hashTagOf(prefix: string): string | undefined {
  const open = prefix.indexOf('{');
  if (open < 0) return undefined;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix.slice(open + 1, close) : undefined;
}

/** What logs may say about the topology: addresses, never credentials. */
export function describeTopology(topology: RedisTopology): Record<string, unknown> {
  const list = (entries: readonly HostPort[]): string =>
    entries.map(({ host, port }) => `${host}:${port}`).join(',');
  switch (topology.kind) {
    case 'standalone': {
      const url = new URL(topology.url);
      return { redis: 'standalone', host: url.host, tls: topology.auth.tls };
    }
    case 'sentinel':
      return { redis: 'sentinel', sentinels: list(topology.sentinels), name: topology.name };
    case 'cluster':
      return { redis: 'cluster', nodes: list(topology.nodes), tls: topology.auth.tls };
  }
}

function nodeOptions(auth: RedisAuth): RedisOptions {
  return {
    ...(auth.username !== undefined ? { username: auth.username } : {}),
    ...(auth.password !== undefined ? { password: auth.password } : {}),
    ...(auth.tls ? { tls: {} } : {}),
  };
}

/**
 * A primary demoted by a failover answers writes with READONLY, and unblocks the clients blocked
 * on it (BullMQ's BZPOPMIN on the queue marker) with UNBLOCKED, until the client reconnects and
 * asks the sentinels again; reconnecting and resending (2) makes the switch invisible to BullMQ.
 */
function reconnectOnReadonly(error: Error): 2 | false {
  return /^(READONLY|UNBLOCKED)/.test(error.message) ? 2 : false;
}

/**
 * ioredis options for one client of a standalone or Sentinel topology, on top of the role's own
 * (`extra`: fail-fast producer or blocking worker). Cluster mode uses `clusterOptions`.
 */
export function redisOptions(
  topology: StandaloneTopology | SentinelTopology,
  extra: RedisOptions,
): RedisOptions {
  const base = { ...nodeOptions(topology.auth), reconnectOnError: reconnectOnReadonly, ...extra };
  if (topology.kind === 'standalone') return base;
  return {
    ...base,
    sentinels: topology.sentinels.map(({ host, port }) => ({ host, port })),
    name: topology.name,
    ...(topology.sentinelPassword !== undefined
      ? { sentinelPassword: topology.sentinelPassword }
      : {}),
    ...(topology.auth.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
    // No failover detector. Its +switch-master handler disconnects the client's connector even
    // while the client is between sockets resolving the master (the old master was killed): the
    // resolution then fails with "Connection is closed." and ioredis ends the client for good
    // (status "end", never reconnected). A BullMQ worker whose connection ended no longer
    // promotes delayed jobs or fetches any, silently. A killed master closes the sockets, and a
    // demoted one answers READONLY/UNBLOCKED (above): both reconnect through the sentinels.
    failoverDetector: false,
  };
}

/** ioredis Cluster options: the role's own options apply to each node's connection. */
export function clusterOptions(topology: ClusterTopology, extra: RedisOptions): ClusterOptions {
  const { enableOfflineQueue, maxRetriesPerRequest, ...perNode } = extra;
  return {
    redisOptions: {
      ...nodeOptions(topology.auth),
      ...perNode,
      ...(maxRetriesPerRequest !== undefined ? { maxRetriesPerRequest } : {}),
    },
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    // MOVED/ASK after a resharding or a failover: follow the new slot map.
    slotsRefreshTimeout: 2000,
  };
}
