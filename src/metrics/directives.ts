import type { Directive, DirectiveStatus } from '../directive/types.js';
import { packageVersion } from '../package-root.js';
import { STATES, trackDirective } from './directive-series.js';
import {
  buildInfo,
  directiveGatedSince,
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
 * What the series read of a status write the API server accepted (the status writer's
 * `TransitionWritten`): the transition's name, the status written over, the directive after it.
 */
export interface ObservedTransition {
  readonly transition: { readonly describe: string };
  readonly before: DirectiveStatus;
  readonly directive: Pick<Directive, 'metadata' | 'status'>;
}

/** Directives this process has a gated-since series for. */
const gatedHere = new Set<string>();

/** Since when the directive's Ready condition says Gated, while it does (an alert's input). */
function observeGated(written: ObservedTransition, seconds: number): void {
  const { namespace, name } = written.directive.metadata;
  const gated = (status: DirectiveStatus | undefined): boolean =>
    status?.conditions?.find((c) => c.type === 'Ready')?.reason === 'Gated';
  const key = `${namespace}/${name}`;
  if (!gated(written.directive.status)) {
    gatedHere.delete(key);
    directiveGatedSince.remove({ namespace, name });
    return;
  }
  // A write while it stays gated (another gate closing) keeps the first moment this process saw.
  if (gatedHere.has(key) && gated(written.before)) return;
  gatedHere.add(key);
  directiveGatedSince.set({ namespace, name }, seconds);
}

/**
 * The status writer's hook: the directive's state series (1 for the state just written, 0 for
 * the others), when it last changed and, for FINISHED, when its run finished.
 */
export function observeTransition(written: ObservedTransition, now = Date.now()): void {
  const { namespace, name } = written.directive.metadata;
  statusTransitions.inc({ transition: written.transition.describe });
  const state = written.directive.status?.state;
  const seconds = now / 1000;
  trackDirective({ namespace, name });
  directiveLastTransition.set({ namespace, name }, seconds);
  observeGated(written, seconds);
  if (state === undefined) return;
  for (const each of STATES)
    directiveState.set({ namespace, name, state: each }, each === state ? 1 : 0);
  if (state === 'FINISHED') directiveLastFinished.set({ namespace, name }, seconds);
}
