import type { BounceMode, PodSelector } from '../../directive/types.js';
import type { ChosenPod } from '../../queue/selector-job.js';
import {
  bounceModeOf,
  maxUnavailableOf,
  type BouncePlan,
  type PlanDefaults,
  type PodOwners,
} from '../plan.js';
import { deleteMode } from './delete.js';
import { evictMode } from './evict.js';
import type { BounceStrategy } from './mode.js';
import { rolloutMode } from './rollout.js';

export type { BounceStrategy, PodBounce, RbacRule } from './mode.js';

/** Every bounce mode, by the name a selector's `bounceMode` (or BOUNCE_MODE) gives it. */
export const STRATEGIES: Readonly<Record<BounceMode, BounceStrategy>> = {
  delete: deleteMode,
  evict: evictMode,
  rollout: rolloutMode,
};

/** The strategy of a selector: its bounceMode, or the installation's default. */
export function strategyOf(defaults: PlanDefaults, selector: PodSelector): BounceStrategy {
  return STRATEGIES[bounceModeOf(defaults, selector)];
}

/**
 * The plan of a selector's bounce: pure and deterministic, so that a re-run after a crash, the
 * worker and the dry run all see the same one. `owners` is required by a mode that needs them
 * (rollout, from `resolvePodOwners`) and ignored by the others; a chosen pod it does not name has
 * no owner.
 */
export function planBounce(
  defaults: PlanDefaults,
  selector: PodSelector,
  chosen: readonly ChosenPod[],
  owners?: PodOwners,
): BouncePlan {
  const strategy = strategyOf(defaults, selector);
  const maxUnavailable = maxUnavailableOf(defaults, selector, chosen.length);
  const input = { chosen, maxUnavailable, ...(owners === undefined ? {} : { owners }) };
  return { bounceMode: strategy.mode, maxUnavailable, ...strategy.plan(input) };
}

/**
 * `planBounce` with the owners asked for only when the mode needs them: the worker's bounce step
 * (owners resolved once and persisted) and the dry run (owners read now) both plan through this.
 */
export async function planSelectorBounce(
  defaults: PlanDefaults,
  selector: PodSelector,
  chosen: readonly ChosenPod[],
  ownersOf: () => Promise<PodOwners>,
): Promise<BouncePlan> {
  const owners = strategyOf(defaults, selector).needsOwners ? await ownersOf() : undefined;
  return planBounce(defaults, selector, chosen, owners);
}
