import { selectorJobId } from '../../queue/names.js';
import { DONE, type PendingWait, type StepContext, type StepOutcome } from '../context.js';
import { countsOf } from './waits.js';

/**
 * Waits for the selectors a job comes after (DESIGN §4 Order) are woken by the end of those
 * selectors (`selector-slots.ts` answers who may go on); this re-check is only the safety net for
 * a wake-up lost with its worker, so it comes seldom.
 */
const RECHECK_POLLS = 10;

/**
 * A wait behind a failed selector lasts until someone retries it, perhaps days: the re-check then
 * slows, a quarter of the time waited so far, up to this (a retry's own end wakes it anyway).
 */
const RECHECK_MAX_MS = 300_000;

function recheckMs(context: StepContext): number {
  const base = context.deps.settings.pollIntervalMs * RECHECK_POLLS;
  const startedAt = context.progress.waitStartedAt;
  const waited = startedAt === undefined ? 0 : Date.now() - startedAt;
  return Math.min(RECHECK_MAX_MS, Math.max(base, Math.floor(waited / 4)));
}

function orderWait(context: StepContext, what: string, status: string): PendingWait {
  return {
    what,
    status,
    counts: countsOf(context, new Set(context.progress.bounced ?? [])),
    // Ends when the selectors before it do: their own waits have timeouts, a failed one a retry.
    timeoutSeconds: undefined,
    recheckMs: recheckMs(context),
    // Hundreds of selectors may wait so: the run's summary tells it, not each of them.
    quiet: true,
  };
}

/**
 * The first step of a job of a run with maxConcurrentSelectors > 1: it starts once the closest
 * earlier selector with waitForReplicas > 0 is done, a selector with waitForReplicas > 0 once
 * every earlier one is, and fewer than K selectors are in progress (DESIGN §4 Order: "fewer than
 * K of the run's selectors are in progress"). A chained job (no order) has nothing to wait for.
 */
export async function order(context: StepContext): Promise<StepOutcome> {
  const slots = context.deps.slots;
  if (context.data.order === undefined || slots === undefined) return DONE;
  const answer = await slots.mayStart(context.data);
  if (answer === 'go') return DONE;
  const { after, barrier, limit } = context.data.order;
  if (answer === 'room') {
    return {
      wait: orderWait(
        context,
        `fewer than ${limit} of the run's selectors in progress or starting (maxConcurrentSelectors)`,
        `a free slot (${limit} selectors in progress)`,
      ),
    };
  }
  const what = barrier
    ? `every earlier selector to be done (waitForReplicas > 0 waits for all of them)`
    : `selector ${after} (waitForReplicas > 0) to be done`;
  return { wait: orderWait(context, what, 'earlier selectors') };
}

/**
 * Before a selector's first batch: one of the run's maxConcurrentSelectors slots, held until the
 * selector is done. Undefined: go on (a chained job needs none).
 */
export async function slotWait(context: StepContext): Promise<PendingWait | undefined> {
  const slots = context.deps.slots;
  if (context.data.order === undefined || slots === undefined) return undefined;
  if (await slots.claim(context.data)) return undefined;
  const limit = context.data.order.limit;
  return orderWait(
    context,
    `one of the run's ${limit} selector slots (maxConcurrentSelectors)`,
    `a free slot (${limit} selectors in progress)`,
  );
}

/**
 * A selector begun that starts a wait before its first batch (its rootCertSync, a gate, a soak)
 * gives its starting mark back, and the parked selectors that may start in its place are promoted
 * now: a wait before the first batch holds nothing (DESIGN §4 Order). Once per wait.
 */
export async function stepAside(context: StepContext, held: PendingWait): Promise<PendingWait> {
  const { data, deps, progress } = context;
  if (data.order === undefined || deps.slots === undefined) return held;
  if (progress.waitStartedAt !== undefined || (progress.bounced ?? []).length > 0) return held;
  const wake = await deps.slots.stepAside(data);
  const ids = wake.map((index) =>
    selectorJobId(data.directive.uid, data.generation, data.runKey, index),
  );
  if (ids.length > 0) await deps.promote?.(ids);
  return held;
}
