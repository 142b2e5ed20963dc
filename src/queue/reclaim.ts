import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  QUEUE_NAME,
  abortKey,
  acceptedKey,
  bounceLeaseKey,
  latestRunKey,
  runBudgetKey,
  runIndexKey,
  runOwnersKey,
  runSentPodsKey,
  runSlotsKey,
  selectorJobId,
  sentKey,
  sentPodsKey,
  tooManyRunsEventKey,
} from './names.js';
import type { Run } from './runs.js';

/** One run of a directive, as its index lists it. */
interface IndexedRun {
  generation: number;
  runKey: string;
  jobs: number;
  sentRunKey: string;
}

const SLOT_PARTS = ['done', 'busy', 'after', 'barrier', 'slot', 'starting'] as const;

function parseMember(member: string): IndexedRun | undefined {
  const [generation, runKey, jobs, sentRunKey] = member.split(':');
  if (generation === undefined || runKey === undefined || jobs === undefined) return undefined;
  return {
    generation: Number(generation),
    runKey,
    jobs: Number(jobs),
    sentRunKey: sentRunKey ?? runKey,
  };
}

/** The runs to reclaim: those of the index, and the latest run's record (runs from before it). */
async function runsOf(redis: Redis, prefix: string, uid: string): Promise<IndexedRun[]> {
  const [members, record] = await Promise.all([
    redis.smembers(runIndexKey(prefix, uid)),
    redis.get(latestRunKey(prefix, uid)),
  ]);
  const runs = new Map<string, IndexedRun>();
  for (const run of members.map(parseMember)) {
    if (run !== undefined) runs.set(`${run.generation}:${run.runKey}`, run);
  }
  if (record !== null) {
    const latest = JSON.parse(record) as Run;
    const key = `${latest.generation}:${latest.runKey}`;
    runs.set(
      key,
      runs.get(key) ?? {
        generation: latest.generation,
        runKey: latest.runKey,
        jobs: latest.jobIds.length,
        sentRunKey: latest.sentKey ?? latest.runKey,
      },
    );
  }
  return [...runs.values()];
}

/**
 * Removes a run's jobs that are in Redis with BullMQ's own `Queue.remove` (each job with its
 * children, so that a chain goes whole from its root, the last selector, and no parent is left
 * to be moved to `wait`). Answers false when a job is locked by a worker (it is running): that
 * job, and the chain above it, stay for a later attempt.
 */
async function removeJobs(
  redis: Redis,
  queue: Pick<Queue, 'remove'>,
  prefix: string,
  ids: string[],
): Promise<boolean> {
  const exists = await Promise.all(ids.map((id) => redis.exists(`${prefix}:${QUEUE_NAME}:${id}`)));
  const [top, ...rest] = ids.filter((_, index) => exists[index] === 1).reverse();
  if (top === undefined) return true;
  // A chain's root first, and alone: removing a child first would move its parent to `wait`.
  // Then the rest (a chain's are gone with it, unless a running job kept them: only its
  // finished children are left, which are nobody's pending dependency).
  const first = await queue.remove(top, { removeChildren: true });
  const codes = await Promise.all(rest.map((id) => queue.remove(id, { removeChildren: true })));
  return first !== 0 && codes.every((code) => code !== 0);
}

function runKeys(prefix: string, uid: string, run: IndexedRun): string[] {
  const { generation, runKey } = run;
  const ref = { uid, generation, runKey };
  return [
    acceptedKey(prefix, uid, generation, runKey),
    sentKey(prefix, uid, generation, run.sentRunKey),
    abortKey(prefix, uid, generation, runKey),
    runOwnersKey(prefix, uid, generation, runKey),
    runSentPodsKey(prefix, uid, generation, runKey),
    ...SLOT_PARTS.map((part) => runSlotsKey(prefix, ref, part)),
  ];
}

/**
 * Reclaims what a deleted directive (by uid) holds in Redis: the jobs of every run it had within
 * RETENTION_DAYS, then its run markers, records, budget, lease, recent pods and run index. Answers
 * `busy` when a job of it is still running (it ends quietly on its own: its directive is gone),
 * having removed what it could; the caller tries again. Idempotent, and safe for several
 * replicas at once: every removal is atomic and removing what is gone is a no-op. Keys are by uid,
 * so a directive re-created under the same name (a new uid) loses nothing.
 *
 * The caller must know that the uid is gone from the cluster: a run accepted for it afterwards
 * would lose its markers.
 */
export async function reclaimDirective(
  redis: Redis,
  queue: Pick<Queue, 'remove'>,
  prefix: string,
  uid: string,
): Promise<'reclaimed' | 'busy'> {
  const runs = await runsOf(redis, prefix, uid);
  let removed = true;
  for (const run of runs) {
    const ids = Array.from({ length: run.jobs }, (_, index) =>
      selectorJobId(uid, run.generation, run.runKey, index),
    );
    removed = (await removeJobs(redis, queue, prefix, ids)) && removed;
  }
  // A running job still reads the lease, its run's record and the abort key: they go last.
  if (!removed) return 'busy';
  await redis.unlink(
    ...runs.flatMap((run) => runKeys(prefix, uid, run)),
    latestRunKey(prefix, uid),
    runBudgetKey(prefix, uid),
    sentPodsKey(prefix, uid),
    bounceLeaseKey(prefix, uid),
    tooManyRunsEventKey(prefix, uid),
    runIndexKey(prefix, uid),
  );
  return 'reclaimed';
}
