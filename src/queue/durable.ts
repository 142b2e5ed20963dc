import type { Redis } from 'ioredis';
import { BouncerError, TransientError } from '../errors.js';
import type { ApiQueues } from './api-queues.js';
import { GroupCommit } from './group-commit.js';
import type { RecentRuns } from './recent-runs.js';
import type { RedisTopology } from './redis-topology.js';
import { waitForReplica } from './replication.js';

// The durability protocol of an answer (ADR 0005): a run is answered only once its jobs are in
// Redis and, with a replicated master, on a replica too.

const DAY_SECONDS = 24 * 3600;

/** What durability reads of the configuration: where the queue lives, and the runs' bounds. */
export interface DurableSettings {
  readonly redis: RedisTopology;
  readonly queuePrefix: string;
  readonly retentionDays: number;
  readonly maxRunsPerHour: number;
  readonly defaultMaxConcurrentSelectors: number;
}

/** What enqueuing runs durably needs of the process that answers events. */
export interface DurableDeps {
  config: DurableSettings;
  redis: Redis;
  queues: Pick<ApiQueues, 'flows'>;
  recentRuns?: RecentRuns;
}

/** Redis trouble is a 503 for the sender to retry; the flow write is atomic, so nothing is half-done. */
export async function inRedis<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BouncerError) throw error;
    // The client's own words stay in the logs (the cause); the sender reads a plain sentence.
    throw new TransientError('Redis is unreachable; try again shortly.', 5, { cause: error });
  }
}

/**
 * A 2xx promises the jobs are durable: with a replicated master (Sentinel), that means a replica
 * has them too. A replica that does not confirm in time is a 503: the sender's retry is then
 * answered as a duplicate (nothing is enqueued twice) once the replica has caught up. Redis
 * Cluster routes WAIT by key, so it is left to the cluster's own replication there.
 */
export async function confirmReplicated(
  deps: Pick<DurableDeps, 'config' | 'redis'>,
): Promise<void> {
  if (deps.config.redis.kind === 'cluster') return;
  const ack = await inRedis(() => waitForReplica(deps.redis));
  if (ack === 'timeout') {
    throw new TransientError(
      'No Redis replica confirmed the event in time; send it again shortly (it will not be enqueued twice).',
      1,
    );
  }
}

/**
 * Enqueues runs for this app by group commit; each batch is durable (a replica confirmed it)
 * before any of its events is answered.
 */
export function groupCommit(deps: DurableDeps): GroupCommit {
  return new GroupCommit({
    flows: () => deps.queues.flows(),
    redis: deps.redis,
    prefix: deps.config.queuePrefix,
    retentionSeconds: deps.config.retentionDays * DAY_SECONDS,
    maxRunsPerHour: deps.config.maxRunsPerHour,
    defaultConcurrency: deps.config.defaultMaxConcurrentSelectors,
    ...(deps.recentRuns === undefined ? {} : { recent: deps.recentRuns }),
    durable: () => confirmReplicated(deps),
  });
}
