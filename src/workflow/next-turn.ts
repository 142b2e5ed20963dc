import { selectorJobId } from '../queue/names.js';
import type { StepContext } from './context.js';

/**
 * A job's next turn among its directive namespace's queued jobs (`queue/namespace-turns.ts`): the
 * priority BullMQ queues it at next, taken just before it is parked (or released, for the next
 * selector of a chain). Best effort: a turn not taken leaves the last one, which only orders.
 */
export async function nextTurn(context: StepContext, jobId: string | undefined): Promise<void> {
  if (jobId === undefined) return;
  await context.deps.turns?.take(context.data.directive.namespace, [jobId]).catch(() => undefined);
}

/**
 * In a chain, the job of the selector after this one, which BullMQ queues when this one completes:
 * it takes its turn now. With several selectors at once, every job was queued with the run.
 */
export async function releaseTurn(context: StepContext): Promise<void> {
  const { data } = context;
  if (data.order !== undefined || data.selectorIndex + 1 >= data.selectorCount) return;
  const { uid } = data.directive;
  await nextTurn(context, selectorJobId(uid, data.generation, data.runKey, data.selectorIndex + 1));
}
