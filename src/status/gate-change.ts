/**
 * A line for the moment a run is held by a gate or goes on again, read from the Ready condition
 * as `status --watch` and the demo see it: which selector, which gate and why. Only the changes
 * make a line; a gate evaluated again and still closed makes none.
 */

export interface ReadyCondition {
  reason?: string;
  message?: string;
}

/** How a closed gate reads in Ready's message (moments.ts writes it, `closedGateOf` reads it). */
export function closedGateText(gate: string, why: string): string {
  return `gate ${gate} closed: ${why}`;
}

/** `gate <name> closed: <why>` out of a Gated message, undefined when there is none. */
export function closedGateOf(message: string | undefined): string | undefined {
  return /(?:^|: |; )(gate .+ closed: .+)$/.exec(message ?? '')?.[1];
}

function selectorOf(message: string | undefined): string {
  return /^selector \d+\/\d+(?: \([^)]*\))?/.exec(message ?? '')?.[0] ?? 'the run';
}

/** The line to show for the change from `before` to `after`, if it is a closing or a resuming. */
export function gateChange(
  before: ReadyCondition | undefined,
  after: ReadyCondition | undefined,
): string | undefined {
  const wasGated = before?.reason === 'Gated';
  if (after?.reason === 'Gated') {
    const closed = closedGateOf(after.message);
    if (closed === undefined || (wasGated && closedGateOf(before.message) === closed))
      return undefined;
    return `${selectorOf(after.message)} gated: ${closed}`;
  }
  // Paused, failed or aborted runs say so themselves; only going on again is a resuming.
  if (wasGated && ['Bouncing', 'Waiting', 'Finished'].includes(after?.reason ?? '')) {
    return `${selectorOf(before.message)} resumed: every gate open`;
  }
  return undefined;
}
