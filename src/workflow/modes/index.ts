import type { BounceMode } from '../../directive/types.js';
import { deleteMode } from './delete.js';
import { evictMode } from './evict.js';
import type { BounceStrategy } from './mode.js';

export type { BounceStrategy, PodBounce } from './mode.js';

/**
 * One implementation per bounce mode. `rollout` restarts owners rather than pods; until its
 * owner-level strategy lands, its pods are evicted (what rollout does with pods that have no
 * restartable owner), so PodDisruptionBudgets and the batch bound still hold.
 */
const STRATEGIES: Record<BounceMode, BounceStrategy> = {
  delete: deleteMode,
  evict: evictMode,
  rollout: evictMode,
};

export function strategyFor(mode: BounceMode): BounceStrategy {
  return STRATEGIES[mode];
}
