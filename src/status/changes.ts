import type { DirectiveStatus } from '../directive/types.js';
import { tellSameRun } from '../queue/run-identity.js';

/** Each phase of a run people are told of, by the Ready reason the projection names it with. */
const PHASE_OF_READY_REASON = {
  Pending: 'accepted',
  Bouncing: 'bouncing',
  Waiting: 'waiting',
  Gated: 'gated',
  Paused: 'paused',
  Finished: 'finished',
  Failed: 'failed',
  Aborted: 'aborted',
} as const;
export type Phase = (typeof PHASE_OF_READY_REASON)[keyof typeof PHASE_OF_READY_REASON];

/** The Ready condition's reason and message, as a status says them. */
export function readyOf(
  status: DirectiveStatus | undefined,
): { reason: string; message: string } | undefined {
  return status?.conditions?.find((condition) => condition.type === 'Ready');
}

/**
 * The phase a write moved the run into, from the difference between the status before and after
 * it: the Ready reason after, when it changed (or the write started another run). Progress within
 * a phase (a wait's counts) is no change.
 */
export function phaseChange(
  before: DirectiveStatus,
  after: DirectiveStatus | undefined,
): Phase | undefined {
  const reason = readyOf(after)?.reason;
  if (reason === undefined || !Object.hasOwn(PHASE_OF_READY_REASON, reason)) return undefined;
  if (tellSameRun(before, after ?? {}) && readyOf(before)?.reason === reason) return undefined;
  return PHASE_OF_READY_REASON[reason as keyof typeof PHASE_OF_READY_REASON];
}
