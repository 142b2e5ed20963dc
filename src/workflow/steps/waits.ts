import type { SelectorProgress } from '../../queue/selector-job.js';
import type { Counts } from '../../status/moments.js';
import type { PendingWait, StepContext } from '../context.js';
import type { PodBounce } from '../modes/mode.js';

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

/**
 * Evictions refused by a PodDisruptionBudget: woken by the pods' changes, then tried again. Its
 * own clock starts at the first refusal; a try that moves no pod leaves it running, one that moves
 * any starts it again (`sendBatch`), so a budget that never allows fails the run at the timeout.
 */
export function budgetWait(
  context: StepContext,
  bounced: Set<string>,
  refused: number,
): PendingWait {
  const namespace = context.data.selector.namespace;
  return {
    what: `a PodDisruptionBudget in ${namespace} to allow evicting ${refused} pod(s)`,
    status: 'a PodDisruptionBudget to allow eviction',
    counts: countsOf(context, bounced),
    timeoutSeconds: context.deps.settings.readinessTimeoutSeconds,
    clock: 'budget',
    wake: { kind: 'podReady', namespace },
  };
}

/**
 * A chunk sent ends the wait before it: the next gate's clock starts afresh. Not one of which
 * nothing went (held back whole for another selector's maxUnavailable, or refused whole by a
 * PodDisruptionBudget): the wait runs on, so that one that is never met ends at its timeout.
 */
export function clockAfter(outcomes: readonly PodBounce[]): Partial<SelectorProgress> {
  const noneWent = outcomes.every((outcome) => outcome === 'blocked');
  return noneWent ? {} : { waitStartedAt: undefined };
}
