/** The Redis settings of the configuration: where the queue lives and the prefix of its keys. */

import {
  parseRedisTopology,
  RedisSettingError,
  type RedisTopology,
} from '../queue/redis-topology.js';
import { ConfigError, defaultText, readText, readUrl, type Env } from './environment.js';

export function redisUrl(env: Env): string {
  const message = 'REDIS_URL must be a redis:// or rediss:// URL.';
  return readUrl(env, 'REDIS_URL', ['redis:', 'rediss:'], message) ?? defaultText('REDIS_URL');
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

/** Sentinel and Cluster settings are parsed beside the connections they shape; errors stay ConfigErrors. */
export function redisTopology(env: Env, prefix: string): RedisTopology {
  try {
    return parseRedisTopology(env, prefix);
  } catch (error) {
    throw error instanceof RedisSettingError ? new ConfigError(error.message) : error;
  }
}
