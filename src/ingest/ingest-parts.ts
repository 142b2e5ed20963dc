import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { ApiQueues } from '../queue/api-queues.js';
import { createProducerConnection } from '../queue/connection.js';
import type { IngestDeps } from './deps.js';
import { FollowUps } from '../status/follow-ups.js';

/** The parts every role that ingests (`serve`, the worker's controller) opens for itself. */
export type IngestParts = Pick<IngestDeps, 'config' | 'log'> & {
  redis: Redis;
  queues: ApiQueues;
  followUps: FollowUps;
};

/**
 * A fail-fast producer connection (its errors are the caller's to report), the queue and flow
 * producer made on first use, and the writes that follow an acceptance (PENDING).
 */
export function openIngest(config: Config, log: Logger): IngestParts {
  const redis = createProducerConnection(config.redis);
  const queues = new ApiQueues({ connection: redis, prefix: config.queuePrefix }, log);
  return { config, log, redis, queues, followUps: new FollowUps() };
}
