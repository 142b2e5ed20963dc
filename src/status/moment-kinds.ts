import type { Counts } from './run-messages.js';

/**
 * What happened in a selector job, as the workflow reports it. Which status that means (state,
 * conditions, Event) is decided here and only here.
 */
export type Moment =
  | { kind: 'started' }
  | { kind: 'chosen'; names: string[] }
  | { kind: 'batchBounced'; counts: Counts }
  | { kind: 'waiting'; what?: string; counts?: Counts; paused?: boolean }
  | { kind: 'gated'; gate: string; why: string; counts?: Counts }
  | { kind: 'paused'; counts: Counts }
  | { kind: 'resumed'; counts: Counts }
  | { kind: 'finished' }
  /** `selector`: the one the run failed by, when it is not this one (a halted run, K > 1). */
  | { kind: 'failed'; cause: string; selector?: number }
  | { kind: 'aborted' };

/** Moments that only refresh a message: written at most every 2 s per directive, with no Event. */
export function isProgressOnly(moment: Moment): boolean {
  return moment.kind === 'batchBounced' || moment.kind === 'waiting';
}

/**
 * Moments the job's next report usually supersedes at once (a batch sent, then the wait for its
 * replacements): held until the job says what comes next (workflow/held-reports.ts).
 */
export function isProvisional(moment: Moment): boolean {
  return moment.kind === 'batchBounced';
}

/** Moments after which the run says nothing more. */
export function isFinal(moment: Moment): boolean {
  return moment.kind === 'finished' || moment.kind === 'failed' || moment.kind === 'aborted';
}
