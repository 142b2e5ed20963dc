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
 * longer is answered after it, as a batch sent before a pause is.
 */
export async function endingOf(context: StepContext, error: unknown): Promise<Moment> {
  const { data, deps } = context;
  const aborted = error instanceof AbortedError;
  const own: Moment = aborted ? { kind: 'aborted' } : { kind: 'failed', cause: messageOf(error) };
  if (data.order === undefined || deps.aborts === undefined) return own;
  const halt = aborted
    ? await deps.aborts.haltOf(data)
    : await deps.aborts.halt(data, { selector: data.selectorIndex, cause: messageOf(error) });
  if (halt === undefined) return own;
  const moment: Moment = { kind: 'failed', cause: halt.cause, selector: halt.selector };
  if (!saysAlready(context, `selector ${halt.selector}: ${halt.cause}`)) await quiesce(context);
  return moment;
}

/**
 * After the halt's FAILED is written: the run's parked selectors are promoted, so that they see
 * the halt now rather than at their re-check (and fail, holding nothing) as the abort route does.
 */
export async function wakeHalted(context: StepContext): Promise<void> {
  const { data, deps } = context;
  if (data.order === undefined || deps.promote === undefined) return;
  await deps.promote(othersOf(data));
}

/**
 * Whether the run is stopped for a job beginning now (`AbortFlags.stopOf`). When the selector that
 * halted the run was retried on its own, the halt is withdrawn and the selectors it halted are
 * retried with it: the run goes on as after the retry route.
 */
export async function stoppedAtStart(deps: WorkflowDeps, data: SelectorJobData): Promise<boolean> {
  const stop = (await deps.aborts?.stopOf(data)) ?? 'go';
  if (stop === 'resumed') await deps.retryFailed?.(othersOf(data));
  return stop === 'stopped';
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
