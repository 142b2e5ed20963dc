import type { Directive } from '../directive/types.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import type { RunSummary } from '../status/moments.js';
import type { WorkflowDeps } from './context.js';

/**
 * Where the whole run stands, for a job of a run with several selectors in progress at once: its
 * messages then summarize the run instead of telling one selector among many. Read once when the
 * job's run begins (one round trip); undefined for a chained job.
 */
export async function runSummary(
  deps: WorkflowDeps,
  data: SelectorJobData,
  directive: Directive,
): Promise<RunSummary | undefined> {
  if (data.order === undefined || deps.slots === undefined) return undefined;
  const { done, busy } = await deps.slots.counts(data);
  const oldest = busy[0];
  const selector = oldest === undefined ? undefined : directive.spec.podsToBounce[oldest];
  return {
    done,
    inProgress: busy.length,
    ...(oldest === undefined || selector === undefined
      ? {}
      : { oldest: { index: oldest, selector } }),
  };
}
