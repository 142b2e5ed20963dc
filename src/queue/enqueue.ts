import type { FlowJob, FlowProducer, JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { directiveKey, type Directive } from '../directive/types.js';
import { QUEUE_NAME, runKeyOf, selectorJobId, selectorJobName } from './names.js';
import type { RecentRuns } from './recent-runs.js';
import { claimRun, confirmRun, releaseRun, type Run } from './runs.js';
import type { SelectorJobData } from './selector-job.js';

export interface EnqueueResult {
  /** The run that answers the event: the new one, or the latest one it duplicates. */
  run: Run;
  duplicate: boolean;
  /** Answered from this process's recent runs: Redis was not asked. */
  recalled?: boolean;
  /**
   * Until when (epoch ms) the answer stays true without asking Redis: the run is accepted and its
   * marker lives until then. Absent when the run may still change (a claim in progress).
   */
  lastsUntil?: number;
}

export interface EnqueueDeps {
  flows: FlowProducer;
  redis: Redis;
  prefix: string;
  /** How long finished jobs and run markers stay in Redis. */
  retentionSeconds: number;
  /** Runs this process saw accepted: a repeated event is answered from them first. */
  recent?: RecentRuns;
}

/**
 * Transient failures (API errors, lost workers) are retried with backoff before a job fails.
 * Finished jobs are removed once they are older than the retention period: the run markers, not
 * the jobs, make a repeated event a duplicate.
 */
export function selectorJobOptions(retentionSeconds: number): JobsOptions {
  return {
    attempts: 8,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: retentionSeconds },
    removeOnFail: { age: retentionSeconds },
  };
}

function selectorJobs(directive: Directive, run: Run, retentionSeconds: number): FlowJob[] {
  const { namespace, name, uid, generation } = directive.metadata;
  const selectors = directive.spec.podsToBounce;
  return selectors.map((selector, selectorIndex) => {
    const data: SelectorJobData = {
      directive: { namespace, name, uid },
      generation,
      runKey: run.runKey,
      selectorIndex,
      selectorCount: selectors.length,
      selector,
      ...(run.issuedAt !== undefined ? { issuedAt: run.issuedAt } : {}),
      progress: { step: 'rootCertSync' },
    };
    return {
      name: selectorJobName(directiveKey(directive.metadata), selectorIndex, selector),
      queueName: QUEUE_NAME,
      data,
      opts: { ...selectorJobOptions(retentionSeconds), jobId: run.jobIds[selectorIndex] },
    };
  });
}

/**
 * A BullMQ flow is a tree whose children finish before their parent starts, so the chain
 * "selector 0, then 1, then 2" is the tree 2 ← 1 ← 0: the last selector is the root and the first
 * the deepest leaf. Its depth is the selector count, which ingest bounds by MAX_SELECTORS.
 */
function chain(jobs: FlowJob[]): FlowJob {
  const [first, ...rest] = jobs;
  if (first === undefined) throw new Error('a chain needs at least one selector job');
  return rest.reduce<FlowJob>((child, parent) => ({ ...parent, children: [child] }), first);
}

/** The run an event for this directive would start. */
export function runFor(directive: Directive, issuedAt: Date | undefined): Run {
  const { uid, generation } = directive.metadata;
  const key = runKeyOf(issuedAt);
  return {
    uid,
    generation,
    runKey: key,
    ...(issuedAt !== undefined ? { issuedAt: issuedAt.toISOString() } : {}),
    jobIds: directive.spec.podsToBounce.map((_, index) =>
      selectorJobId(uid, generation, key, index),
    ),
    acceptedAt: new Date().toISOString(),
  };
}

/**
 * Enqueues the run an event asks for, or answers that an accepted run already covers it (DESIGN
 * §2 *Runs*). The decision is one atomic Redis script; the whole chain is then added in one
 * transaction (every job or none), with deterministic ids so that adding it twice changes
 * nothing. A claim whose chain could not be added is released, so the sender's retry starts over.
 * `issuance` is true for native and CloudEvent events, whose later `issuedAt` starts a new run of
 * the same generation; the object shapes start a run only for a generation that has none.
 */
export async function enqueueRun(
  deps: EnqueueDeps,
  directive: Directive,
  issuedAt: Date | undefined,
  issuance: boolean,
): Promise<EnqueueResult> {
  const run = runFor(directive, issuedAt);
  const known = deps.recent?.recall(deps.prefix, run);
  if (known !== undefined) return { run: known, duplicate: true, recalled: true };
  const claimedAt = Date.now();
  const claim = await claimRun(deps.redis, deps.prefix, run, {
    issuance,
    retentionSeconds: deps.retentionSeconds,
  });
  if (claim.decision === 'duplicate') {
    // Another request claimed this very run a moment ago: make sure its jobs are durable before
    // answering (adding them again is a no-op), as a 2xx promises.
    if (claim.inProgress)
      await deps.flows.add(chain(selectorJobs(directive, run, deps.retentionSeconds)));
    const ttl = claim.acceptedTtlMs;
    return {
      run: claim.latest ?? run,
      duplicate: true,
      ...(ttl === undefined ? {} : { lastsUntil: claimedAt + ttl }),
    };
  }
  try {
    await deps.flows.add(chain(selectorJobs(directive, run, deps.retentionSeconds)));
  } catch (error) {
    await releaseRun(deps.redis, deps.prefix, run, claim.previous).catch(() => undefined);
    throw error;
  }
  const confirmedAt = Date.now();
  await confirmRun(deps.redis, deps.prefix, run, deps.retentionSeconds);
  return { run, duplicate: false, lastsUntil: confirmedAt + deps.retentionSeconds * 1000 };
}
