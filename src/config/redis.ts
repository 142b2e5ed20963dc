/**
 * The Redis settings of the configuration: where the queue lives (one Redis, a Sentinel-watched
 * primary or a Redis Cluster) and the prefix of its keys. Secrets read here stay in the topology:
 * `describeTopology` (queue/redis-topology.ts) is what logs see.
 */

import {
  hashTagOf,
  type HostPort,
  type RedisAuth,
  type RedisTopology,
  type StandaloneTopology,
} from '../queue/redis-topology.js';
import { variable } from './variables.js';
import { ConfigError, defaultText, readText, readUrl, type Env } from './environment.js';

export function redisUrl(env: Env): string {
  const url = readUrl(env, 'REDIS_URL', ['redis:', 'rediss:'], 'a') ?? defaultText('REDIS_URL');
  // ioredis takes the path (or ?db=) as the database and sends SELECT with parseInt of it: "/abc"
  // would be SELECT NaN, an error thrown outside any handler; "/1x" quietly database 1.
  const { pathname, searchParams } = new URL(url);
  const database = [pathname === '/' ? '' : pathname.slice(1), searchParams.get('db') ?? ''];
  if (database.some((given) => given !== '' && !/^\d{1,9}$/.test(given))) {
    throw new ConfigError(
      'REDIS_URL must name its database by a whole number from 0 (redis://host:6379/0) or not at all.',
    );
  }
  return url;
}

export function queuePrefix(env: Env): string {
  // Set but empty (`QUEUE_PREFIX=`) is a mistake, not a wish for the default: two installations
  // that both meant a prefix of their own would share one queue.
  if (env.QUEUE_PREFIX !== undefined && env.QUEUE_PREFIX.trim() === '') {
    throw new ConfigError('QUEUE_PREFIX is set but empty; remove it or give it a value.');
  }
  const prefix = readText(env, 'QUEUE_PREFIX') ?? defaultText('QUEUE_PREFIX');
  // BullMQ joins keys with ':'; a colon in the prefix would make keys ambiguous.
  if (!/^[A-Za-z0-9_{}.-]+$/.test(prefix)) {
    throw new ConfigError(
      `QUEUE_PREFIX may contain only letters, digits and "_ - . { }", not "${prefix}".`,
    );
  }
  return prefix;
}

function hostPorts(env: Env, name: string): HostPort[] | undefined {
  const raw = readText(env, name);
  if (raw === undefined) return undefined;
  return raw.split(',').map((entry) => {
    const match = /^\[?([^\s\]]+?)\]?:(\d{1,5})$/.exec(entry.trim());
    const port = Number(match?.[2]);
    if (match?.[1] === undefined || port < 1 || port > 65535) {
      throw new ConfigError(
        `${name} must be a comma-separated list of host:port entries, not "${entry.trim()}".`,
      );
    }
    return { host: match[1], port };
  });
}

function auth(env: Env): RedisAuth {
  const tls = readText(env, 'REDIS_TLS') ?? String(variable('REDIS_TLS').default);
  if (tls !== 'true' && tls !== 'false') {
    throw new ConfigError(`REDIS_TLS must be true or false, not "${tls}".`);
  }
  return {
    username: readText(env, 'REDIS_USERNAME'),
    password: readText(env, 'REDIS_PASSWORD'),
    tls: tls === 'true',
  };
}

function standalone(env: Env): StandaloneTopology {
  const url = redisUrl(env);
  const base = auth(env);
  return {
    kind: 'standalone',
    url,
    auth: { ...base, tls: base.tls || new URL(url).protocol === 'rediss:' },
  };
}

/**
 * Exactly one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES may be set (none: the local
 * default URL). In Cluster mode the queue prefix must carry a hash tag, or BullMQ's scripts would
 * fail with CROSSSLOT at the first flow.
 */
export function redisTopology(env: Env, prefix: string): RedisTopology {
  const sentinels = hostPorts(env, 'REDIS_SENTINELS');
  const nodes = hostPorts(env, 'REDIS_CLUSTER_NODES');
  if (sentinels && nodes) {
    throw new ConfigError('REDIS_SENTINELS and REDIS_CLUSTER_NODES cannot both be set.');
  }
  const chosen = sentinels ? 'REDIS_SENTINELS' : nodes ? 'REDIS_CLUSTER_NODES' : undefined;
  if (chosen !== undefined && readText(env, 'REDIS_URL') !== undefined) {
    throw new ConfigError(`REDIS_URL cannot be combined with ${chosen}; set only one.`);
  }
  if (sentinels) {
    const name = readText(env, 'REDIS_SENTINEL_NAME');
    if (name === undefined) {
      throw new ConfigError(
        'REDIS_SENTINEL_NAME must name the monitored master when REDIS_SENTINELS is set.',
      );
    }
    const sentinelPassword = readText(env, 'REDIS_SENTINEL_PASSWORD');
    return { kind: 'sentinel', sentinels, name, sentinelPassword, auth: auth(env) };
  }
  if (nodes) {
    if (hashTagOf(prefix) === undefined) {
      throw new ConfigError(
        `QUEUE_PREFIX must carry a Redis Cluster hash tag such as "{pod-bouncer}" when REDIS_CLUSTER_NODES is set, not "${prefix}".`,
      );
    }
    return { kind: 'cluster', nodes, auth: auth(env) };
  }
  return standalone(env);
}
