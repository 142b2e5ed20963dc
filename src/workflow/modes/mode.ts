import type { BounceMode } from '../../directive/types.js';
import type { ChosenPod } from '../../queue/selector-job.js';
import type { StepContext } from '../context.js';

/** What became of one pod's bounce: sent (or found already done), or refused for now. */
export type PodBounce = 'done' | 'blocked';

/**
 * One way of bouncing a chosen pod (DESIGN §4 step 3). Every implementation guards the pod by its
 * uid, so that a replacement reusing the name is never touched, and treats "already gone" as done.
 * `blocked` means "not now" (a PodDisruptionBudget refused): the step waits for pod changes and
 * tries again later.
 */
export interface BounceStrategy {
  readonly mode: BounceMode;
  bouncePod(context: StepContext, pod: ChosenPod): Promise<PodBounce>;
}
