import type { Counts } from '../../status/moments.js';
import type { PendingWait, StepContext } from '../context.js';

export function countsOf(context: StepContext, bounced: Set<string>): Counts {
  return { bounced: bounced.size, chosen: context.progress.chosen?.length ?? 0 };
}

/** The wait of a paused directive: no timeout, woken when the annotation goes. */
export function pausedWait(context: StepContext, bounced: Set<string>): PendingWait {
  return {
    what: 'the directive to be resumed',
    status: 'resume',
    counts: countsOf(context, bounced),
    timeoutSeconds: undefined,
    wake: { kind: 'resumed', ref: context.data.directive },
  };
}

/** An eviction refused by a PodDisruptionBudget: woken by the pods' changes, then tried again. */
export function budgetWait(context: StepContext, bounced: Set<string>): PendingWait {
  const namespace = context.data.selector.namespace;
  return {
    what: `eviction allowed by a PodDisruptionBudget in ${namespace}`,
    status: 'a PodDisruptionBudget to allow eviction',
    counts: countsOf(context, bounced),
    timeoutSeconds: context.deps.settings.readinessTimeoutSeconds,
    wake: { kind: 'podReady', namespace },
  };
}
