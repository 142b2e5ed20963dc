import type { Redis } from 'ioredis';
import {
  QUEUE_NAME,
  acceptedKey,
  latestRunKey,
  runBudgetKey,
  runIndexKey,
  sentKey,
  type DirectiveName,
} from './names.js';
import { isSameRun, runBudgetMember, type RunId } from './run-identity.js';
import { runCommands } from './run-scripts.js';

/**
 * One run: a pass over a directive's selectors for one (uid, generation, issuedAt). Stored as JSON
 * at `latestRunKey(prefix, uid)` for the directive's latest run; a job whose (generation, runKey)
 * is not that run's is superseded and bounces nothing.
 */
export interface Run extends RunId {
  issuedAt?: string;
  /**
   * The runKey of `issuedAt` as the sender wrote it, when that was ahead of the clock and the
   * run's `issuedAt` is the moment it was received (DESIGN §2): a repeat of the event is this run.
   */
  sentKey?: string;
  jobIds: string[];
  /** When the run was accepted (RFC 3339); its jobs carry it too (`runMoment`). */
  acceptedAt: string;
}

/** The directive's latest run, or undefined when none was accepted (or it outlived retention). */
export async function latestRun(
  redis: Redis,
  prefix: string,
  uid: string,
): Promise<Run | undefined> {
  const stored = await redis.get(latestRunKey(prefix, uid));
  return stored === null ? undefined : (JSON.parse(stored) as Run);
}

/** Whether a job of (generation, runKey) belongs to the latest run; no record: it does. */
export function isLatest(run: Run | undefined, job: Pick<RunId, 'generation' | 'runKey'>): boolean {
  return run === undefined || isSameRun(run, job);
}

/**
 * A run's record, its marker, and the sent key of its issuedAt as sent: looked up for every run
 * (an event on time may repeat one that came ahead of the clock), written only for a run whose
 * issuedAt was ahead.
 */
export function runRecordKeys(prefix: string, run: Run): [string, string, string] {
  const { uid, generation, runKey } = run;
  return [
    latestRunKey(prefix, uid),
    acceptedKey(prefix, uid, generation, runKey),
    sentKey(prefix, uid, generation, run.sentKey ?? runKey),
  ];
}

/**
 * Marks runs accepted, each only if every job of it is in Redis; each becomes the latest unless a
 * newer one is. Answers, per run, whether it was confirmed. One script call for the whole batch,
 * each run still decided on its own.
 */
export async function confirmRuns(
  redis: Redis,
  prefix: string,
  runs: readonly Run[],
  retentionSeconds: number,
): Promise<boolean[]> {
  if (runs.length === 0) return [];
  const keyArgs: string[] = [];
  const valueArgs = [String(retentionSeconds)];
  for (const run of runs) {
    keyArgs.push(...runRecordKeys(prefix, run), runIndexKey(prefix, run.uid));
    for (const id of run.jobIds) keyArgs.push(`${prefix}:${QUEUE_NAME}:${id}`);
    valueArgs.push(
      String(run.jobIds.length),
      JSON.stringify(run),
      String(run.generation),
      run.runKey,
      run.acceptedAt,
    );
  }
  const replies = await runCommands(redis).podBouncerConfirmRuns(
    String(keyArgs.length),
    ...keyArgs,
    ...valueArgs,
  );
  return replies.map((reply) => reply !== -1);
}

/** Undoes a claim whose enqueue failed, so the sender's retry is handled afresh. */
export async function releaseRun(
  redis: Redis,
  prefix: string,
  { run, directive }: { run: Run; directive: DirectiveName },
  previous: Run | undefined,
): Promise<void> {
  const before = previous === undefined ? '' : JSON.stringify(previous);
  // Not accepted: it does not count against the directive's budget either.
  await redis.zrem(runBudgetKey(prefix, directive), runBudgetMember(run));
  await runCommands(redis).podBouncerReleaseRun(
    ...runRecordKeys(prefix, run),
    JSON.stringify(run),
    before,
    run.runKey,
  );
}
