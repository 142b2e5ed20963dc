import { packageVersion } from '../package-root.js';
import type { TransitionWritten } from '../status/writer.js';
import { STATES, trackDirective } from './directive-series.js';
import {
  buildInfo,
  directiveLastFinished,
  directiveLastTransition,
  directiveState,
  statusTransitions,
} from './registry.js';

/** The version of package.json (which ships beside the code), or `unknown` without it. */
function versionOrUnknown(): string {
  try {
    return packageVersion();
  } catch {
    return 'unknown';
  }
}

/** Sets `pod_bouncer_build_info` for this process's role. */
export function recordBuildInfo(role: string): void {
  buildInfo.set({ version: versionOrUnknown(), node: process.version, role }, 1);
}

/**
 * The status writer's hook: the directive's state series (1 for the state just written, 0 for
 * the others), when it last changed and, for FINISHED, when its run finished.
 */
export function observeTransition(written: TransitionWritten, now = Date.now()): void {
  const { namespace, name } = written.directive.metadata;
  statusTransitions.inc({ transition: written.transition.describe });
  const state = written.directive.status?.state;
  const seconds = now / 1000;
  trackDirective({ namespace, name });
  directiveLastTransition.set({ namespace, name }, seconds);
  if (state === undefined) return;
  for (const each of STATES)
    directiveState.set({ namespace, name, state: each }, each === state ? 1 : 0);
  if (state === 'FINISHED') directiveLastFinished.set({ namespace, name }, seconds);
}
