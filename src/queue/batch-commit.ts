/**
 * The commit of one batch of events: their runs claimed in one script, their flows added in one
 * MULTI, the new runs confirmed with the replica check; on any failure the claims are released
 * and the whole batch fails. GroupCommit (group-commit.ts) decides what goes in a batch.
 */

import type { FlowJob, FlowProducer } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Directive } from '../directive/types.js';
import { queuedAtOnce, runFlows, runFor, type EnqueueResult } from './enqueue.js';
import { QUEUE_NAME } from './names.js';
import { LAST_TURN } from './namespace-turns.js';
import type { RecentRuns } from './recent-runs.js';
import { claimRuns, type RunClaim } from './run-claims.js';
import { releaseRun, confirmRuns, type Run } from './runs.js';

export interface EnqueueRequest {
  directive: Directive;
  issuedAt: Date | undefined;
  /** The event's own issuedAt when it was ahead of the clock (`issuedAt` is then when it came). */
  sentIssuedAt?: Date;
  /** True for native and CloudEvent events, whose later `issuedAt` starts a new run. */
  issuance: boolean;
}

export interface GroupCommitDeps {
  /** The flow producer, made on first use. */
  flows: () => Promise<FlowProducer>;
  redis: Redis;
  prefix: string;
  /** How long finished jobs and run markers stay in Redis. */
  retentionSeconds: number;
  /** DEFAULT_MAX_CONCURRENT_SELECTORS: a directive's maxConcurrentSelectors when it sets none. */
  defaultConcurrency?: number;
  /** MAX_RUNS_PER_HOUR: runs a directive may start in any hour. */
  maxRunsPerHour?: number;
  /** Runs this process saw accepted: a repeated event is answered from them first. */
  recent?: RecentRuns;
  /**
   * Called once per committed batch, after its writes: throws when they are not durable yet
   * (a replica that did not acknowledge them), and every answer of the batch then fails.
   */
  durable?: () => Promise<void>;
}

/** An event waiting for its batch's commit, and how to answer it. */
export interface Waiting {
  request: EnqueueRequest;
  run: Run;
  resolve: (result: EnqueueResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The flows a batch must add: every new run's, at the turn its claim took, and every run another
 * request claimed a moment ago (its jobs must be durable before a 2xx; adding them again is a
 * no-op, and took no turn). One per run.
 */
function flowsToAdd(
  deps: GroupCommitDeps,
  batch: Waiting[],
  claims: RunClaim[],
): Map<Run, FlowJob[]> {
  const flows = new Map<string, [Run, FlowJob[]]>();
  const defaultConcurrency = deps.defaultConcurrency ?? 1;
  claims.forEach((claim, index) => {
    const { request, run } = batch[index]!;
    if (claim.decision === 'new' || (claim.decision === 'duplicate' && claim.inProgress)) {
      const turn = claim.decision === 'new' ? claim.turn : LAST_TURN;
      const jobs = runFlows(request.directive, run, deps.retentionSeconds, {
        defaultConcurrency,
        turn,
      });
      flows.set(run.jobIds[0]!, [run, jobs]);
    }
  });
  return new Map(flows.values());
}

/**
 * Checks that the jobs of runs another request claimed a moment ago are in Redis (their flows were
 * added again above); new runs are checked by their confirmation script.
 */
async function assertQueued(deps: GroupCommitDeps, runs: Run[]): Promise<void> {
  if (runs.length === 0) return;
  const keys = runs.flatMap((run) => run.jobIds.map((id) => `${deps.prefix}:${QUEUE_NAME}:${id}`));
  const present = await deps.redis.exists(...keys);
  if (present !== keys.length) {
    throw new Error(`the queue holds ${present} of the ${keys.length} jobs just added`);
  }
}

/**
 * Undoes the claims of new runs that were not confirmed (a confirmed run keeps its marker). Last
 * claimed first: when two runs of one directive were claimed in the batch, the later one puts back
 * the earlier as the latest run, whose own release then puts back what was there before.
 */
async function release(deps: GroupCommitDeps, batch: Waiting[], claims: RunClaim[]): Promise<void> {
  const undo = claims.flatMap((claim, index) => {
    if (claim.decision !== 'new') return [];
    const { run, request } = batch[index]!;
    return [{ claimed: { run, directive: request.directive.metadata }, previous: claim.previous }];
  });
  // Sent in this order on the one connection, so Redis runs them in it.
  await Promise.allSettled(
    undo
      .reverse()
      .map(({ claimed, previous }) => releaseRun(deps.redis, deps.prefix, claimed, previous)),
  );
}

/**
 * Writes the flows and confirms the new runs. The confirmations, the check of the re-added runs
 * and the replica check go out together on the one connection (in that order, so a replica's
 * acknowledgement covers the confirmations): three round trips per batch in all, with the claims.
 */
async function write(deps: GroupCommitDeps, batch: Waiting[], claims: RunClaim[]): Promise<void> {
  const flows = flowsToAdd(deps, batch, claims);
  if (flows.size > 0) await (await deps.flows()).addBulk([...flows.values()].flat());
  const fresh = batch.filter((_, index) => claims[index]!.decision === 'new');
  const again = batch.filter((_, index) => {
    const claim = claims[index]!;
    return claim.decision === 'duplicate' && claim.inProgress;
  });
  const [confirmed] = await Promise.all([
    confirmRuns(
      deps.redis,
      deps.prefix,
      fresh.map(({ run }) => run),
      deps.retentionSeconds,
    ),
    assertQueued(
      deps,
      again.map(({ run }) => run),
    ),
    deps.durable?.(),
  ]);
  const missing = confirmed.filter((ok) => !ok).length;
  if (missing > 0) {
    throw new Error(`${missing} of the ${fresh.length} new runs are missing jobs just added`);
  }
}

/**
 * A repeat of an event whose issuedAt was ahead of the clock is answered by the run it started,
 * which has another runKey than the repeat would: that run's jobs are the ones to re-add while it
 * is being claimed (job ids are deterministic from the runKey).
 */
function followClaims(batch: Waiting[], claims: RunClaim[]): void {
  claims.forEach((claim, index) => {
    if (claim.decision !== 'duplicate' || claim.runKey === undefined) return;
    const item = batch[index]!;
    item.run = runFor(item.request.directive, new Date(Number(claim.runKey)));
  });
}

/** Claims, writes and confirms a batch's runs: one answer per event, in the batch's order. */
export async function commit(deps: GroupCommitDeps, batch: Waiting[]): Promise<EnqueueResult[]> {
  const claimedAt = Date.now();
  const claims = await claimRuns(
    deps.redis,
    deps.prefix,
    batch.map(({ request, run }) => ({
      run,
      directive: request.directive.metadata,
      issuance: request.issuance,
      queued: queuedAtOnce(request.directive, deps.defaultConcurrency ?? 1),
    })),
    {
      retentionSeconds: deps.retentionSeconds,
      budget: { perHour: deps.maxRunsPerHour ?? Number.MAX_SAFE_INTEGER },
    },
  );
  followClaims(batch, claims);
  try {
    await write(deps, batch, claims);
  } catch (error) {
    await release(deps, batch, claims);
    throw error;
  }
  const confirmedAt = Date.now();
  return claims.map((claim, index): EnqueueResult => {
    const { run } = batch[index]!;
    if (claim.decision === 'new') {
      return { run, duplicate: false, lastsUntil: confirmedAt + deps.retentionSeconds * 1000 };
    }
    if (claim.decision === 'too_many') {
      return { run, duplicate: false, tooManyRuns: { retryAfterMs: claim.retryAfterMs } };
    }
    // Answered by another run's marker (see followClaims): the event's own runKey stays unknown
    // to Redis, so no cache may answer for it.
    const ttl = claim.runKey === undefined ? claim.acceptedTtlMs : undefined;
    return {
      run: claim.latest ?? run,
      duplicate: true,
      ...(ttl === undefined ? {} : { lastsUntil: claimedAt + ttl }),
    };
  });
}
