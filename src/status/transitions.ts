import type {
  BouncedPods,
  Condition,
  DirectiveState,
  DirectiveStatus,
} from '../directive/types.js';
import type { DirectiveEvent } from '../kube/gateway.js';
import { describesRun } from '../queue/run-identity.js';
import { removeCondition, sameConditions, setCondition } from './conditions.js';

/**
 * A status transition: given the status as last read, the merge patch to write (or undefined when
 * the status already says it), and the Kubernetes Event that tells a person what happened (none
 * for a progress message). Transitions are pure so that a 409 can simply re-read and re-apply them.
 */
export interface Transition {
  describe: string;
  patch(current: DirectiveStatus): DirectiveStatus | undefined;
  event?: DirectiveEvent;
  /** The Event, when it depends on the status before the write (read, never after a patch). */
  eventFor?: (before: DirectiveStatus) => DirectiveEvent | undefined;
}

/** The Event that tells a transition written over `before`. */
export function eventOf(
  transition: Transition,
  before: DirectiveStatus,
): DirectiveEvent | undefined {
  return transition.eventFor?.(before) ?? transition.event;
}

/** What the status must say after a moment, in kstatus terms. */
export interface DesiredStatus {
  generation: number;
  issuedAt?: string;
  state?: DirectiveState;
  error?: string;
  ready: { status: 'True' | 'False'; reason: string; message: string };
  /** Reconciling True while a run is queued, running, waiting or paused; removed otherwise. */
  reconciling: boolean;
  /** Stalled True with this reason when the run failed or was aborted; removed otherwise. */
  stalled?: string;
  podsBounced?: { index: number; names: string[] };
  /** The selector whose progress this is: it does not undo another selector's failure. */
  selectorIndex?: number;
  /** A status that already describes this run in a later phase is left alone (e.g. re-sent PENDING). */
  onlyIf?: (current: DirectiveStatus, fresh: boolean) => boolean;
}

/**
 * The merge patch that makes `current` say `desired`, or undefined when it already does.
 * Conditions go through `setCondition`, so lastTransitionTime moves only with a status change.
 * A status of another generation is replaced: podsBounced starts empty for a new run.
 */
export function patchFor(
  current: DirectiveStatus,
  desired: DesiredStatus,
  now: Date,
): DirectiveStatus | undefined {
  const fresh = isNewRun(current, desired);
  if (desired.onlyIf !== undefined && !desired.onlyIf(current, fresh)) return undefined;
  if (!fresh && failedByAnother(current, desired)) return podsOnly(current, desired);
  const patch: DirectiveStatus = scalarPatch(current, desired, fresh);
  const pods = podsBouncedPatch(fresh ? [] : (current.podsBounced ?? []), desired.podsBounced);
  if (pods !== undefined) patch.podsBounced = pods;
  const conditions = conditionsFor(current, desired, now);
  if (!sameConditions(current.conditions, conditions)) patch.conditions = conditions;
  if (Object.keys(patch).length === 0) return undefined;
  return { observedGeneration: desired.generation, ...patch };
}

/** A new generation, or a later issuance of the same one (DESIGN §2 *Runs*), is a new run. */
function isNewRun(current: DirectiveStatus, desired: DesiredStatus): boolean {
  return !describesRun(current, desired);
}

/**
 * With several selectors in progress at once, one may fail while others still report (until they
 * see the halt, or once retried before it): their progress still records their pods, but the run
 * stays FAILED, naming the failed selector, until that one is retried (its own progress then says
 * BOUNCING_PODS again).
 */
function failedByAnother(current: DirectiveStatus, desired: DesiredStatus): boolean {
  if (current.state !== 'FAILED' || desired.state !== 'BOUNCING_PODS') return false;
  if (desired.selectorIndex === undefined) return false;
  const failed = /^selector (\d+): /.exec(current.error ?? '');
  return failed !== null && Number(failed[1]) !== desired.selectorIndex;
}

/** Only the selector's pods, for a run that stays FAILED (see failedByAnother). */
function podsOnly(current: DirectiveStatus, desired: DesiredStatus): DirectiveStatus | undefined {
  const pods = podsBouncedPatch(current.podsBounced ?? [], desired.podsBounced);
  return pods === undefined
    ? undefined
    : { observedGeneration: desired.generation, podsBounced: pods };
}

/** The run's issuance where it differs; a new run without one does not inherit the previous run's. */
function issuedAtPatch(
  current: DirectiveStatus,
  desired: DesiredStatus,
  fresh: boolean,
): string | null | undefined {
  const now = current.issuedAt ?? undefined;
  if (desired.issuedAt !== undefined)
    return now === desired.issuedAt ? undefined : desired.issuedAt;
  return fresh && now !== undefined ? null : undefined;
}

/** observedGeneration, issuedAt, state and error where they differ (all of them for a new run). */
function scalarPatch(
  current: DirectiveStatus,
  desired: DesiredStatus,
  fresh: boolean,
): DirectiveStatus {
  const patch: DirectiveStatus = fresh
    ? { observedGeneration: desired.generation, podsBounced: [] }
    : {};
  const issuedAt = issuedAtPatch(current, desired, fresh);
  if (issuedAt !== undefined) patch.issuedAt = issuedAt;
  if (desired.state !== undefined && (fresh || current.state !== desired.state)) {
    patch.state = desired.state;
  }
  if (desired.error !== undefined && (fresh || current.error !== desired.error)) {
    patch.error = desired.error;
  }
  return patch;
}

function conditionsFor(current: DirectiveStatus, desired: DesiredStatus, now: Date): Condition[] {
  const observedGeneration = desired.generation;
  let list = setCondition(
    current.conditions,
    { type: 'Ready', observedGeneration, ...desired.ready },
    now,
  );
  list = desired.reconciling
    ? setCondition(
        list,
        { type: 'Reconciling', status: 'True', observedGeneration, ...reasonOf(desired) },
        now,
      )
    : removeCondition(list, 'Reconciling');
  list =
    desired.stalled === undefined
      ? removeCondition(list, 'Stalled')
      : setCondition(
          list,
          {
            type: 'Stalled',
            status: 'True',
            observedGeneration,
            reason: desired.stalled,
            message: desired.error ?? desired.ready.message,
          },
          now,
        );
  return list;
}

function reasonOf(desired: DesiredStatus): { reason: string; message: string } {
  return { reason: desired.ready.reason, message: desired.ready.message };
}

function podsBouncedPatch(
  list: BouncedPods[],
  entry: DesiredStatus['podsBounced'],
): BouncedPods[] | undefined {
  if (entry === undefined) return undefined;
  const existing = list[entry.index];
  if (existing !== undefined && sameNames(existing.bouncedPods, entry.names)) return undefined;
  const next = [...list];
  while (next.length < entry.index) next.push({ bouncedPods: [] });
  next[entry.index] = { bouncedPods: entry.names };
  return next;
}

/** A transition from a desired status, with the Event that tells it. */
export function transition(
  describe: string,
  desired: DesiredStatus,
  event: DirectiveEvent | undefined,
  now: Date = new Date(),
): Transition {
  return {
    describe,
    patch: (current) => patchFor(current, desired, now),
    ...(event === undefined ? {} : { event }),
  };
}

/**
 * The run was accepted (ingest writes it; the worker too when the api could not): PENDING, Ready
 * False `Pending`, Reconciling True. A status that already describes this generation is left alone.
 */
export function accepted(generation: number, selectors: number, issuedAt?: string): Transition {
  return transition(
    'accepted',
    {
      generation,
      ...(issuedAt === undefined ? {} : { issuedAt }),
      state: 'PENDING',
      error: '',
      ready: {
        status: 'False',
        reason: 'Pending',
        message: `queued: ${selectors} selector(s) to bounce`,
      },
      reconciling: true,
      onlyIf: (_current, fresh) => fresh,
    },
    {
      type: 'Normal',
      reason: 'Accepted',
      // An event or, in controller mode, the directive itself: the run is what was accepted, and
      // its issuance tells the rounds of a rotation apart in `kubectl describe pbd`.
      message: `Run accepted for generation ${generation}${issuedAt === undefined ? '' : ` (issued ${issuedAt})`}: ${selectors} pod selector(s) queued.`,
    },
  );
}

function sameNames(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((name, index) => name === b[index]);
}
