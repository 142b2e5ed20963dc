import type { BounceMode } from '../../directive/types.js';
import { deleteMode } from './delete.js';
import { evictMode } from './evict.js';
import type { BounceStrategy } from './mode.js';

export type { BounceStrategy, PodBounce } from './mode.js';

/**
 * One implementation per bounce mode, for the pods bounced one by one. `rollout` restarts owners
 * instead (modes/rollout.ts); its chosen pods without a restartable owner are evicted.
 */
const STRATEGIES: Record<BounceMode, BounceStrategy> = {
  delete: deleteMode,
  evict: evictMode,
  rollout: evictMode,
};

export function strategyFor(mode: BounceMode): BounceStrategy {
  return STRATEGIES[mode];
}
