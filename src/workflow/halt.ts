import { AbortedError, messageOf } from '../errors.js';
import { runJobIds } from '../queue/names.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import type { Moment } from '../status/moments.js';
import type { StepContext, WorkflowDeps } from './context.js';

/** How long the status write of a halt waits for a batch in flight (the lease's inline wait). */
const QUIESCE_MS = 2000;
const QUIESCE_POLL_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the status is told of a job's terminal failure. In a chain that is the job's own failure
 * (or abort). With several selectors in progress at once (DESIGN §4 Order) the first terminal
 * failure halts the run as an abort does (`run-control.ts`): the run is FAILED naming that
 * selector and its cause whichever job writes it, and every other job stops before its next
 * batch. The write waits (at most QUIESCE_MS) for a batch already sent to be answered, so that
 * a batch sent before the halt is not still landing after the status says FAILED; one that takes
 * longer is answered after it, as a batch sent before a pause is. `attempt` is when the failed
 * run of the job began (its processedOn).
 */
export async function endingOf(
  context: StepContext,
  error: unknown,
  attempt: number | undefined,
): Promise<Moment> {
  const moment = await haltingMoment(context.deps, context.data, error, attempt);
  if (moment.kind === 'failed' && moment.selector !== undefined) {
    if (!saysAlready(context, `selector ${moment.selector}: ${moment.cause}`)) {
      await quiesce(context);
    }
  }
  return moment;
}

/**
 * The moment of a job's terminal failure, halting the run when several selectors may be in
 * progress: the run's halt (this one, or an earlier selector's, whose cause it keeps), or the
 * operator's abort. A job that fails outside the processor (BullMQ gave up on it) goes this way
 * too, so that it never replaces the cause of the halt.
 */
export async function haltingMoment(
  deps: WorkflowDeps,
  data: SelectorJobData,
  error: unknown,
  attempt: number | undefined,
): Promise<Moment> {
  const aborted = error instanceof AbortedError;
  const own: Moment = aborted ? { kind: 'aborted' } : { kind: 'failed', cause: messageOf(error) };
  if (data.order === undefined || deps.aborts === undefined) return own;
  const cause = messageOf(error);
  const halt = aborted
    ? await deps.aborts.haltOf(data)
    : await deps.aborts.halt(data, {
        selector: data.selectorIndex,
        cause,
        ...(attempt === undefined ? {} : { attempt }),
      });
  if (halt === undefined) return own;
  return { kind: 'failed', cause: halt.cause, selector: halt.selector };
}

/**
 * After the halt's FAILED is written: the run's parked selectors are promoted, so that they see
 * the halt now rather than at their re-check (and fail, holding nothing) as the abort route does.
 */
export async function wakeHalted(deps: WorkflowDeps, data: SelectorJobData): Promise<void> {
  if (data.order === undefined || deps.promote === undefined) return;
  await deps.promote(othersOf(data));
}

/**
 * Whether the run is stopped for a job beginning now (`AbortFlags.stopOf`). When the selector that
 * halted the run was retried on its own, the halt is withdrawn and the selectors it halted are
 * retried with it: the run goes on as after the retry route. Those retried with it (the
 * dashboard's retry of every failed job) and begun first stop too, but do not fail: they look
 * again later (`failure.ts`), and are promoted now.
 */
export async function stoppedAtStart(deps: WorkflowDeps, data: SelectorJobData): Promise<boolean> {
  const stop = (await deps.aborts?.stopOf(data)) ?? 'go';
  if (stop === 'resumed') {
    await deps.retryFailed?.(othersOf(data));
    await deps.promote?.(othersOf(data));
  }
  return stop === 'stopped' || stop === 'deferred';
}

/** The job ids of the run's other selectors. */
function othersOf(data: SelectorJobData): string[] {
  const run = { uid: data.directive.uid, generation: data.generation, runKey: data.runKey };
  return runJobIds(run, data.selectorCount).filter((_, index) => index !== data.selectorIndex);
}

/** True when the watch cache's copy already says the run FAILED with this error. */
function saysAlready(context: StepContext, error: string): boolean {
  const status = context.deps.directives?.peek(context.data.directive)?.status;
  return status?.state === 'FAILED' && status.error === error;
}

/**
 * Waits for the batches in flight, if any, to be answered: a batch is sent under the directive's
 * bounce lease and checks the stop mark once it holds it (`steps/under-lease.ts`), and the run's
 * selectors share that lease, so once no other job holds it no batch of the run is sent any more.
 */
async function quiesce(context: StepContext): Promise<void> {
  const deadline = Date.now() + QUIESCE_MS;
  while (!(await context.lease.quiet().catch(() => true)) && Date.now() < deadline) {
    await sleep(QUIESCE_POLL_MS);
  }
}
