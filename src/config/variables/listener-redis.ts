/** Where pod-bouncer listens, and the Redis that holds its queue. */

import { Type } from 'typebox';

import { BOTH, config, fixed, integer, text, values, inGroup } from './declare.js';

/** The HTTP listener of both roles. */
export const LISTENER = inGroup('Listener', [
  {
    name: 'PORT',
    schema: integer(0, 65535),
    default: 8080,
    roles: BOTH,
    doc: 'HTTP port: the events endpoint, probes and metrics (the worker serves probes and metrics)',
    chart: fixed('8080, the port of the Service, the probes and the monitors'),
  },
  {
    name: 'HOST',
    schema: text(),
    default: '0.0.0.0',
    roles: BOTH,
    doc: 'address the HTTP listener binds',
    chart: fixed('every address of the pod'),
  },
]);

/** The Redis connection (a URL, Sentinels or a Cluster), its key prefix and retention. */
export const REDIS = inGroup('Redis', [
  {
    name: 'REDIS_URL',
    schema: Type.String({ pattern: '^rediss?://' }),
    default: 'redis://127.0.0.1:6379',
    roles: BOTH,
    doc: 'Redis connection; rediss:// for TLS',
    chart: values('redis.builtin, redis.external.url or redis.external.existingSecret'),
    secret: true,
  },
  {
    name: 'REDIS_SENTINELS',
    schema: text(),
    roles: BOTH,
    doc: 'host:port,… of Sentinels watching the primary, instead of REDIS_URL',
    chart: values('redisSentinel.sentinels'),
  },
  {
    name: 'REDIS_SENTINEL_NAME',
    schema: text(),
    roles: BOTH,
    doc: 'the master group name the Sentinels monitor (required with REDIS_SENTINELS)',
    chart: values('redisSentinel.masterName'),
  },
  {
    name: 'REDIS_SENTINEL_PASSWORD',
    schema: text(),
    roles: BOTH,
    doc: 'password of the Sentinels themselves',
    chart: values('redisSentinel.sentinelPasswordSecret'),
    secret: true,
  },
  {
    name: 'REDIS_CLUSTER_NODES',
    schema: text(),
    roles: BOTH,
    doc: 'host:port,… seed nodes of a Redis Cluster, instead of REDIS_URL (QUEUE_PREFIX needs a {hash tag})',
    chart: values('redisCluster.nodes'),
  },
  {
    name: 'REDIS_USERNAME',
    schema: text(),
    roles: BOTH,
    doc: 'ACL user of the data nodes (Sentinel and Cluster)',
    chart: values('redisSentinel.username or redisCluster.username'),
  },
  {
    name: 'REDIS_PASSWORD',
    schema: text(),
    roles: BOTH,
    doc: 'password of the data nodes',
    chart: values(
      'redis.builtin.auth, redisSentinel.passwordSecret or redisCluster.passwordSecret',
    ),
    secret: true,
  },
  {
    name: 'REDIS_TLS',
    schema: Type.Boolean(),
    default: false,
    roles: BOTH,
    doc: 'TLS to the data nodes (Sentinel and Cluster; REDIS_URL says it with rediss://)',
    chart: values('redisSentinel.tls or redisCluster.tls'),
  },
  {
    name: 'QUEUE_PREFIX',
    schema: Type.String({ pattern: '^[A-Za-z0-9_{}.-]+$' }),
    default: 'pod-bouncer',
    roles: BOTH,
    doc: 'BullMQ key prefix; lets several installations share one Redis; set but empty is an error',
    chart: config,
  },
  {
    name: 'RETENTION_DAYS',
    schema: integer(1, 3650),
    default: 30,
    roles: BOTH,
    doc: 'how long finished jobs and run markers are kept in Redis (CloudEvent ids: 24 hours)',
    chart: config,
  },
]);
