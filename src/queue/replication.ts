import type { Redis } from 'ioredis';

/** How long an answer may wait for a replica to confirm the writes behind it. */
export const REPLICA_WAIT_MS = 2000;

export type ReplicaAck = 'no-replicas' | 'acknowledged' | 'timeout';

/**
 * Asked for every answer (one cheap round trip): a replica that joined a moment ago must be
 * waited for too, and a cached "none" would skip it.
 */
async function replicasOf(redis: Redis): Promise<number> {
  const info = await redis.info('replication');
  return Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
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
  return acknowledged >= 1 ? 'acknowledged' : 'timeout';
}
