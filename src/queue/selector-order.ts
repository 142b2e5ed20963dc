import type { DirectiveSpec } from '../directive/types.js';

/**
 * Where a selector stands in its run's order when several selectors may be in progress at once
 * (DESIGN §4 Order). Absent from a job (maxConcurrentSelectors 1): the jobs are a chain, each
 * started by the end of the one before.
 */
export interface SelectorOrder {
  /** maxConcurrentSelectors: selectors of the run in progress (pods down) at once. */
  limit: number;
  /** waitForReplicas > 0: starts only once every earlier selector is done. */
  barrier: boolean;
  /**
   * The closest earlier barrier (-1: none). A barrier starts only when everything before it is
   * done, so this one done means every barrier before it is done too: the one index to check.
   */
  after: number;
}

/** The run's concurrency: the directive's own, else DEFAULT_MAX_CONCURRENT_SELECTORS. */
export function concurrencyOf(spec: DirectiveSpec, defaultLimit: number): number {
  return spec.maxConcurrentSelectors ?? defaultLimit;
}

/** Each selector's order, in spec order; undefined when the run is a plain chain (limit 1). */
export function selectorOrders(
  spec: DirectiveSpec,
  defaultLimit: number,
): SelectorOrder[] | undefined {
  const limit = concurrencyOf(spec, defaultLimit);
  if (limit <= 1) return undefined;
  let after = -1;
  return spec.podsToBounce.map((selector, index) => {
    const barrier = selector.waitForReplicas > 0;
    const order = { limit, barrier, after };
    if (barrier) after = index;
    return order;
  });
}
