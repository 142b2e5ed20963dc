import type { Redis } from 'ioredis';

/** How long an answer may wait for a replica to confirm the writes behind it. */
export const REPLICA_WAIT_MS = 2000;
/** How long a master's replica count is trusted before INFO is asked again. */
const REPLICAS_TTL_MS = 5000;

export type ReplicaAck = 'no-replicas' | 'acknowledged' | 'timeout';

const replicaCounts = new WeakMap<Redis, { count: number; at: number }>();

async function replicasOf(redis: Redis): Promise<number> {
  const cached = replicaCounts.get(redis);
  if (cached !== undefined && Date.now() - cached.at < REPLICAS_TTL_MS) return cached.count;
  const info = await redis.info('replication');
  const count = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
  replicaCounts.set(redis, { count, at: Date.now() });
  return count;
}

/**
 * Waits (bounded by `timeoutMs`) until at least one replica has acknowledged every write this
 * connection made, so that a failover right after the answer cannot lose an accepted event.
 * Redis replicates asynchronously: without this, a 202 may stand for jobs that only the old
 * master ever held. A master without replicas has nothing to wait for.
 */
export async function waitForReplica(
  redis: Redis,
  timeoutMs = REPLICA_WAIT_MS,
): Promise<ReplicaAck> {
  if ((await replicasOf(redis)) === 0) return 'no-replicas';
  const acknowledged = (await redis.call('WAIT', '1', String(timeoutMs))) as number;
  if (acknowledged >= 1) return 'acknowledged';
  replicaCounts.delete(redis);
  return 'timeout';
}
