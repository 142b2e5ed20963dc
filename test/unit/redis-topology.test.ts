import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { acceptedKey, QUEUE_NAME } from '../../src/queue/names.js';
import {
  clusterOptions,
  describeTopology,
  hashTagOf,
  redisOptions,
} from '../../src/queue/redis-topology.js';

const SENTINEL = { REDIS_SENTINELS: 'a:26379, b:26379', REDIS_SENTINEL_NAME: 'mymaster' };
const CLUSTER = { REDIS_CLUSTER_NODES: 'r1:6379,r2:6379', QUEUE_PREFIX: '{pod-bouncer}' };

describe('Redis topology settings', () => {
  it('defaults to one local Redis', () => {
    expect(loadConfig({}).redis).toMatchObject({
      kind: 'standalone',
      url: 'redis://127.0.0.1:6379',
      auth: { tls: false },
    });
    expect(loadConfig({ REDIS_URL: 'rediss://r:6380' }).redis.auth.tls).toBe(true);
  });

  it('reads Sentinel: addresses, master name, both passwords, TLS', () => {
    const config = loadConfig({
      ...SENTINEL,
      REDIS_SENTINEL_PASSWORD: 's3',
      REDIS_PASSWORD: 'p4',
      REDIS_TLS: 'true',
    });
    expect(config.redis).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 'a', port: 26379 },
        { host: 'b', port: 26379 },
      ],
      name: 'mymaster',
      sentinelPassword: 's3',
      auth: { username: undefined, password: 'p4', tls: true },
    });
    if (config.redis.kind === 'cluster') throw new Error('unreachable');
    const options = redisOptions(config.redis, { maxRetriesPerRequest: null });
    expect(options).toMatchObject({
      name: 'mymaster',
      sentinelPassword: 's3',
      password: 'p4',
      tls: {},
      enableTLSForSentinelMode: true,
      maxRetriesPerRequest: null,
    });
    expect(JSON.stringify(describeTopology(config.redis))).not.toMatch(/s3|p4/);
    // No +switch-master detector: it could end a client resolving the master for good. A demoted
    // master's READONLY and UNBLOCKED answers make the client reconnect through the sentinels.
    expect(options.failoverDetector).toBe(false);
    const reconnect = options.reconnectOnError as (error: Error) => unknown;
    expect(reconnect(new Error("READONLY You can't write against a read only replica."))).toBe(2);
    expect(reconnect(new Error('UNBLOCKED force unblock from blocking operation'))).toBe(2);
    expect(reconnect(new Error('ERR something else'))).toBe(false);
  });

  it('reads Cluster nodes and passes the role options to every node', () => {
    const config = loadConfig({ ...CLUSTER, REDIS_PASSWORD: 'p4' });
    if (config.redis.kind !== 'cluster') throw new Error('expected cluster');
    expect(config.redis.nodes).toEqual([
      { host: 'r1', port: 6379 },
      { host: 'r2', port: 6379 },
    ]);
    const options = clusterOptions(config.redis, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
    });
    expect(options).toMatchObject({
      enableOfflineQueue: false,
      redisOptions: { password: 'p4', maxRetriesPerRequest: 1 },
    });
  });

  it.each([
    [
      { ...CLUSTER, QUEUE_PREFIX: 'pod-bouncer' },
      /^QUEUE_PREFIX must carry a Redis Cluster hash tag/,
    ],
    [{ ...CLUSTER, QUEUE_PREFIX: 'pb{}x' }, /^QUEUE_PREFIX must carry/],
    [{ REDIS_CLUSTER_NODES: 'r1:6379' }, /^QUEUE_PREFIX must carry/],
    [{ REDIS_CLUSTER_NODES: 'r1' }, /^REDIS_CLUSTER_NODES must be a comma-separated list/],
    [{ REDIS_SENTINELS: 'a:26379' }, /^REDIS_SENTINEL_NAME must name the monitored master/],
    [{ REDIS_SENTINELS: 'a:99999', REDIS_SENTINEL_NAME: 'm' }, /^REDIS_SENTINELS must be/],
    [{ ...SENTINEL, ...CLUSTER }, /^REDIS_SENTINELS and REDIS_CLUSTER_NODES cannot both be set/],
    [{ ...SENTINEL, REDIS_URL: 'redis://x:6379' }, /^REDIS_URL cannot be combined/],
    [{ REDIS_TLS: 'yes' }, /^REDIS_TLS must be true or false/],
  ])('stops on %j with one sentence naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('finds the hash tag the way Redis Cluster does', () => {
    expect(hashTagOf('{pod-bouncer}')).toBe('pod-bouncer');
    expect(hashTagOf('team-a{pb}')).toBe('pb');
    expect(hashTagOf('{}{pb}')).toBeUndefined();
    expect(hashTagOf('pod-bouncer')).toBeUndefined();
  });

  it('puts the accepted marker under the same hash tag as the queue keys', () => {
    const prefix = '{pod-bouncer}';
    const marker = acceptedKey(prefix, 'uid-1', 3, '0');
    expect(hashTagOf(marker)).toBe(hashTagOf(`${prefix}:${QUEUE_NAME}:wait`));
  });
});
