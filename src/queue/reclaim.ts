import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DeletedRef } from './deleted-directives.js';
import { withLuaCommands } from './lua-commands.js';
import {
  LEASE_OWNER_FIELD,
  QUEUE_NAME,
  abortKey,
  acceptedKey,
  bounceLeaseKey,
  latestRunKey,
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

/*
 * KEYS[1]: the directive's lease (by name). ARGV[1]: the deleted uid. The lease goes only while
 * that uid's run took it last: a directive re-created under the name that took it since keeps it.
 */
const DROP_LEASE = `
local owner = redis.call('HGET', KEYS[1], '${LEASE_OWNER_FIELD}')
if owner and string.match(owner, '^(%S+)') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

function dropLease(redis: Redis, prefix: string, ref: DeletedRef): Promise<number> {
  const commands = withLuaCommands<{ podBouncerDropLease(...args: string[]): Promise<number> }>(
    redis,
    { podBouncerDropLease: { numberOfKeys: 1, lua: DROP_LEASE } },
  );
  return commands.podBouncerDropLease(bounceLeaseKey(prefix, ref), ref.uid);
}

/**
 * Reclaims what a deleted directive (by uid) holds in Redis: the jobs of every run it had within
 * RETENTION_DAYS, then its run markers, records, recent pods and run index, and its lease unless a
 * directive re-created under the name took it since. Answers `busy` when a job of it is still
 * running (it ends quietly on its own: its directive is gone), having removed what it could; the
 * caller tries again. Idempotent, and safe for several replicas at once: every removal is atomic
 * and removing what is gone is a no-op. The keys are by uid but for the lease and the run budget
 * (by name; the budget is left to expire within the hour, so that deleting and re-creating a
 * directive does not reset it): a directive re-created under the same name loses nothing.
 *
 * The caller must know that the uid is gone from the cluster: a run accepted for it afterwards
 * would lose its markers.
 */
export async function reclaimDirective(
  redis: Redis,
  queue: Pick<Queue, 'remove'>,
  prefix: string,
  ref: DeletedRef,
): Promise<'reclaimed' | 'busy'> {
  const { uid } = ref;
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
    sentPodsKey(prefix, uid),
    tooManyRunsEventKey(prefix, uid),
    runIndexKey(prefix, uid),
  );
  await dropLease(redis, prefix, ref);
  return 'reclaimed';
}
