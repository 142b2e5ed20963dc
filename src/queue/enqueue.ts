import type { FlowJob, JobsOptions } from 'bullmq';
import { directiveKey, type Directive } from '../directive/types.js';
import { QUEUE_NAME, runJobIds, selectorJobName } from './names.js';
import { LAST_TURN, turnAfter } from './namespace-turns.js';
import { runKeyOf } from './run-identity.js';
import type { Run } from './runs.js';
import { SELECTOR_BACKOFF } from './selector-backoff.js';
import type { SelectorJobData } from './selector-job.js';
import { selectorOrders, type SelectorOrder } from './selector-order.js';

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
  /** Refused: the directive started MAX_RUNS_PER_HOUR runs in the past hour; one more in this. */
  tooManyRuns?: { retryAfterMs: number };
}

/**
 * Transient failures (API errors, lost workers) are retried with the worker's backoff
 * (`selectorBackoff`: 1 s doubling to at most 30 s, jittered) before a job fails.
 * Completed jobs are removed once they are older than the retention period: the run markers, not
 * the jobs, make a repeated event a duplicate. A failed job is kept, with the later selectors
 * waiting on it, until the worker's sweep removes them all together after the retention period
 * (`removeFailedRuns`): BullMQ's removal by age would move the next selector to `wait`, and the
 * rest of a run that failed long ago would start.
 */
export function selectorJobOptions(retentionSeconds: number): JobsOptions {
  return {
    attempts: 8,
    backoff: { type: SELECTOR_BACKOFF },
    removeOnComplete: { age: retentionSeconds },
    removeOnFail: false,
  };
}

/**
 * The run's jobs, each queued with its turn in the directive's namespace as its BullMQ priority
 * (`namespace-turns.ts`): from `turn` on when all are queued at once; in a chain, the first one's
 * (each later one takes its own turn when the one before it releases it).
 */
function selectorJobs(
  directive: Directive,
  run: Run,
  retentionSeconds: number,
  { turn, orders }: { turn: number; orders?: SelectorOrder[] | undefined },
): FlowJob[] {
  const { namespace, name, uid, generation } = directive.metadata;
  const selectors = directive.spec.podsToBounce;
  return selectors.map((selector, selectorIndex) => {
    const order = orders?.[selectorIndex];
    const priority = turnAfter(turn, orders === undefined ? 0 : selectorIndex);
    const data: SelectorJobData = {
      directive: { namespace, name, uid },
      generation,
      runKey: run.runKey,
      acceptedAt: run.acceptedAt,
      selectorIndex,
      selectorCount: selectors.length,
      selector,
      ...(order === undefined ? {} : { order }),
      ...(run.issuedAt !== undefined ? { issuedAt: run.issuedAt } : {}),
      progress: { step: order === undefined ? 'rootCertSync' : 'order' },
    };
    return {
      name: selectorJobName(directiveKey(directive.metadata), selectorIndex, selector),
      queueName: QUEUE_NAME,
      data,
      opts: { ...selectorJobOptions(retentionSeconds), jobId: run.jobIds[selectorIndex], priority },
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

/**
 * The run an event for this directive would start; `sentIssuedAt` is the event's own value when
 * it was ahead of the clock and `issuedAt` is the moment it was received.
 */
export function runFor(directive: Directive, issuedAt: Date | undefined, sentIssuedAt?: Date): Run {
  const { uid, generation } = directive.metadata;
  const key = runKeyOf(issuedAt);
  return {
    uid,
    generation,
    runKey: key,
    ...(issuedAt !== undefined ? { issuedAt: issuedAt.toISOString() } : {}),
    ...(sentIssuedAt !== undefined ? { sentKey: runKeyOf(sentIssuedAt) } : {}),
    jobIds: runJobIds({ uid, generation, runKey: key }, directive.spec.podsToBounce.length),
    acceptedAt: new Date().toISOString(),
  };
}

/**
 * The flow that enqueues a run: its selector jobs chained in spec order; the first queued at
 * `turn` (by default the last: it took none).
 */
export function runChain(
  directive: Directive,
  run: Run,
  retentionSeconds: number,
  turn = LAST_TURN,
): FlowJob {
  return chain(selectorJobs(directive, run, retentionSeconds, { turn }));
}

/** How many of the run's jobs are queued at once: the whole run, or the first of its chain. */
export function queuedAtOnce(directive: Directive, defaultConcurrency: number): number {
  const orders = selectorOrders(directive.spec, defaultConcurrency);
  return orders === undefined ? 1 : directive.spec.podsToBounce.length;
}

/**
 * What enqueues a run: with maxConcurrentSelectors 1, its chain; above, one job per selector, all
 * waiting at once, each starting when its order step finds the selectors it waits for done
 * (`workflow/selector-slots.ts`): a flow cannot say "K at a time" nor give a job two parents.
 */
export function runFlows(
  directive: Directive,
  run: Run,
  retentionSeconds: number,
  { defaultConcurrency, turn }: { defaultConcurrency: number; turn: number },
): FlowJob[] {
  const orders = selectorOrders(directive.spec, defaultConcurrency);
  if (orders === undefined) return [runChain(directive, run, retentionSeconds, turn)];
  return selectorJobs(directive, run, retentionSeconds, { turn, orders });
}
