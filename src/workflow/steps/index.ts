import { SELECTOR_STEPS, type SelectorStep } from '../../queue/selector-job.js';
import type { StepContext, StepOutcome } from '../context.js';
import { bounce } from './bounce.js';
import { order } from './order.js';
import { rootCertSync } from './root-cert-sync.js';
import { select } from './select.js';
import { waitForReplicas } from './wait-for-replicas.js';

export type StepName = (typeof SELECTOR_STEPS)[number];
export type StepFunction = (context: StepContext) => Promise<StepOutcome>;

/** Each step's function; the order is SELECTOR_STEPS', declared once beside the job's data. */
const STEP_FUNCTIONS: Record<StepName, StepFunction> = {
  order,
  rootCertSync,
  select,
  bounce,
  waitForReplicas,
};

export function stepFunction(step: StepName): StepFunction {
  return STEP_FUNCTIONS[step];
}

/** The step after `step` in the declared order; `done` after the last. */
export function nextStep(step: StepName): SelectorStep {
  return SELECTOR_STEPS[SELECTOR_STEPS.indexOf(step) + 1] ?? 'done';
}

/** The job's progress percentage as the dashboard shows it: steps done of all steps. */
export function stepPercent(step: SelectorStep): number {
  if (step === 'done') return 100;
  return Math.round((SELECTOR_STEPS.indexOf(step) / SELECTOR_STEPS.length) * 100);
}

/** True for a step past the choice of pods (a resumed job that already bounced or may have). */
export function isPastSelect(step: SelectorStep): boolean {
  return step === 'done' || SELECTOR_STEPS.indexOf(step) > SELECTOR_STEPS.indexOf('select');
}
