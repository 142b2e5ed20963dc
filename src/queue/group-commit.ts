import type { FlowJob, FlowProducer } from 'bullmq';
import type { Directive } from '../directive/types.js';
import type { Redis } from 'ioredis';
import { runFlows, runFor, type EnqueueResult } from './enqueue.js';
import { QUEUE_NAME, runKeyOf } from './names.js';
import type { RecentRuns } from './recent-runs.js';
import { claimRuns, releaseRun, confirmRuns, type Run, type RunClaim } from './runs.js';

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

interface Waiting {
  request: EnqueueRequest;
  run: Run;
  resolve: (result: EnqueueResult) => void;
  reject: (error: unknown) => void;
}

/** Runs per commit: the flows of one batch go out in one MULTI, whose size this bounds. */
const MAX_BATCH = 128;

/**
 * Commits in flight at once: while one waits for Redis, the next batch's claims are already on
 * the wire, so Redis is not left idle between batches. Each is as independent as a commit of
 * another api replica (a run claimed by one and seen by the next is re-added, a no-op).
 */
const MAX_IN_FLIGHT = 2;

/**
 * A commit is three round trips in a row: under a burst, events waited on two commits while the
 * process sat partly idle. A backlog of this many events starts another commit, up to
 * MAX_IN_FLIGHT_BACKLOGGED, so that the process and Redis both stay busy; events that trickle in
 * still wait and share a commit.
 */
const BACKLOG = 8;
const MAX_IN_FLIGHT_BACKLOGGED = 6;

/**
 * Enqueues runs by group commit: the events that arrive while commits are in flight (or within
 * the same turn of the event loop) are decided and written together, in three Redis round trips
 * per batch instead of several per event — one claim script for the batch, one MULTI of flows
 * (`FlowProducer.addBulk`), one confirmation script with the replica check. Each claim is still
 * its own decision, taken in arrival order (the script takes them all at once, atomically). A
 * batch is committed whole or fails whole: then the claims it made are released and every event
 * of it gets the error (a 503 the sender retries; deterministic job ids make the retry add nothing
 * twice).
 */
export class GroupCommit {
  private waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly deps: GroupCommitDeps) {}

  /** True while a commit is in flight or events wait for one: a burst of new events is on. */
  get busy(): boolean {
    return this.inFlight > 0 || this.waiting.length > 0;
  }

  /** The run an event asks for: new, or the run that already covers it (DESIGN §2 *Runs*). */
  enqueue(request: EnqueueRequest): Promise<EnqueueResult> {
    // A repeat is recalled by the run's identity alone; its job ids and times are built on a miss.
    const recent = this.deps.recent;
    if (recent !== undefined) {
      const { uid, generation } = request.directive.metadata;
      const ref = { uid, generation, runKey: runKeyOf(request.issuedAt) };
      const known = recent.recall(this.deps.prefix, ref);
      if (known !== undefined)
        return Promise.resolve({ run: known, duplicate: true, recalled: true });
    }
    const run = runFor(request.directive, request.issuedAt, request.sentIssuedAt);
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, run, resolve, reject });
      this.schedule();
    });
  }

  private canStart(): boolean {
    if (this.inFlight < MAX_IN_FLIGHT) return true;
    return this.inFlight < MAX_IN_FLIGHT_BACKLOGGED && this.waiting.length >= BACKLOG;
  }

  private schedule(): void {
    if (this.scheduled || !this.canStart()) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.commitNext();
    });
  }

  private async commitNext(): Promise<void> {
    const batch = this.waiting.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    this.inFlight += 1;
    try {
      const results = await commit(this.deps, batch);
      batch.forEach((item, index) => item.resolve(results[index]!));
    } catch (error) {
      for (const item of batch) item.reject(error);
    } finally {
      this.inFlight -= 1;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}

/**
 * The flows a batch must add: every new run's, and every run another request claimed a moment
 * ago (its jobs must be durable before a 2xx; adding them again is a no-op). One per run.
 */
function flowsToAdd(
  deps: GroupCommitDeps,
  batch: Waiting[],
  claims: RunClaim[],
): Map<Run, FlowJob[]> {
  const flows = new Map<string, [Run, FlowJob[]]>();
  const concurrency = deps.defaultConcurrency ?? 1;
  claims.forEach((claim, index) => {
    const { request, run } = batch[index]!;
    if (claim.decision === 'new' || (claim.decision === 'duplicate' && claim.inProgress)) {
      const jobs = runFlows(request.directive, run, deps.retentionSeconds, concurrency);
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
  const undo = claims.flatMap((claim, index) =>
    claim.decision === 'new' ? [{ run: batch[index]!.run, previous: claim.previous }] : [],
  );
  // Sent in this order on the one connection, so Redis runs them in it.
  await Promise.allSettled(
    undo.reverse().map(({ run, previous }) => releaseRun(deps.redis, deps.prefix, run, previous)),
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

async function commit(deps: GroupCommitDeps, batch: Waiting[]): Promise<EnqueueResult[]> {
  const claimedAt = Date.now();
  const claims = await claimRuns(
    deps.redis,
    deps.prefix,
    batch.map(({ request, run }) => ({ run, issuance: request.issuance })),
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
