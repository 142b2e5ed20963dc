/**
 * Which directives have per-directive series, so that their number stays bounded and a deleted
 * directive's series go away. A directive is tracked from its first status write; past
 * MAX_TRACKED_DIRECTIVES the one whose status changed longest ago loses its series, and a sweep
 * every SWEEP_INTERVAL_MS removes the series of directives that no longer exist.
 */

import type { DirectiveState, ObjectRef } from '../directive/types.js';
import {
  directiveGatedSince,
  directiveLastFinished,
  directiveLastTransition,
  directiveState,
} from './registry.js';

/** The states `pod_bouncer_directive_state` has a series for, per directive. */
export const STATES: readonly DirectiveState[] = ['PENDING', 'BOUNCING_PODS', 'FAILED', 'FINISHED'];

export const MAX_TRACKED_DIRECTIVES = 1000;
export const SWEEP_INTERVAL_MS = 30_000;

/** Keys `ns/name` in the order their status last changed, oldest first. */
const tracked = new Map<string, ObjectRef>();

/** Notes a status write of the directive; drops the stalest directives' series past the bound. */
export function trackDirective(ref: ObjectRef, max = MAX_TRACKED_DIRECTIVES): void {
  const key = `${ref.namespace}/${ref.name}`;
  tracked.delete(key);
  tracked.set(key, { namespace: ref.namespace, name: ref.name });
  for (const [oldest, each] of tracked) {
    if (tracked.size <= max) break;
    tracked.delete(oldest);
    removeSeries(each);
  }
}

/** Removes every per-directive series of the directive. */
export function forgetDirective(ref: ObjectRef): void {
  tracked.delete(`${ref.namespace}/${ref.name}`);
  removeSeries(ref);
}

function removeSeries({ namespace, name }: ObjectRef): void {
  directiveLastTransition.remove({ namespace, name });
  directiveLastFinished.remove({ namespace, name });
  directiveGatedSince.remove({ namespace, name });
  for (const state of STATES) {
    directiveState.remove({ namespace, name, state });
  }
}

/** The directives that have series now. */
export function trackedDirectives(): ObjectRef[] {
  return [...tracked.values()];
}

/**
 * Whether the directive exists: true, false, or undefined when it cannot be told now (its
 * namespace's watch is not synced): such a directive keeps its series until a later sweep.
 */
export type DirectiveExists = (ref: ObjectRef) => Promise<boolean | undefined>;

/** Forgets every tracked directive that no longer exists; resolves to how many were forgotten. */
export async function sweepDeletedDirectives(exists: DirectiveExists): Promise<number> {
  let forgotten = 0;
  for (const ref of trackedDirectives()) {
    if ((await exists(ref).catch(() => undefined)) === false) {
      forgetDirective(ref);
      forgotten += 1;
    }
  }
  return forgotten;
}

/** Sweeps every `intervalMs` until the returned function is called. */
export function startDirectiveSweep(
  exists: DirectiveExists,
  intervalMs = SWEEP_INTERVAL_MS,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running || tracked.size === 0) return;
    running = true;
    void sweepDeletedDirectives(exists).finally(() => {
      running = false;
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
