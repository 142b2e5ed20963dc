import type { DirectiveSpec } from '../directive/types.js';
import { concurrencyOf } from '../queue/selector-order.js';
import type { SelectorPlan } from './selector.js';

/** A dry run in figures, for a plan of hundreds of selectors nobody reads line by line. */
export interface PlanSummary {
  selectors: number;
  /** Pods that would be bounced now, and those left alone. */
  pods: number;
  skipped: number;
  batches: number;
  /** Selectors with a warning (no pod, waitForReplicas too high, a missing rootCertSync object). */
  warned: number;
  /** Selectors waiting on a root cert not in sync yet. */
  gated: number;
  /** maxConcurrentSelectors as the run would have it, and the selectors with waitForReplicas > 0. */
  maxConcurrentSelectors: number;
  barriers: number;
  /** The same in one line. */
  message: string;
}

export function summarizePlan(
  spec: DirectiveSpec,
  selectors: SelectorPlan[],
  defaultConcurrency: number,
): PlanSummary {
  const sum = (of: (plan: SelectorPlan) => number): number =>
    selectors.reduce((total, plan) => total + of(plan), 0);
  const summary = {
    selectors: selectors.length,
    pods: sum((plan) => plan.pods.length),
    skipped: sum((plan) => plan.skipped.length),
    batches: sum((plan) => plan.batches.length),
    warned: selectors.filter((plan) => plan.warnings.length > 0).length,
    gated: selectors.filter((plan) => plan.gates.rootCertSync?.inSync === false).length,
    maxConcurrentSelectors: concurrencyOf(spec, defaultConcurrency),
    barriers: spec.podsToBounce.filter((selector) => selector.waitForReplicas > 0).length,
  };
  const message = `${summary.selectors} selectors, ${summary.pods} pods to bounce in ${summary.batches} batches (${summary.skipped} left alone), ${summary.maxConcurrentSelectors} selector(s) at a time, ${summary.barriers} with waitForReplicas; ${summary.warned} with warnings, ${summary.gated} waiting on rootCertSync`;
  return { ...summary, message };
}
