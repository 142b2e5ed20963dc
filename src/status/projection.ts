import { isDeepStrictEqual } from 'node:util';
import type { BouncedPods, DirectiveState, DirectiveStatus } from '../directive/types.js';
import { boundedText, STATUS_TEXT_BYTES } from '../bounded-text.js';
import type { DirectiveEvent } from '../kube/gateway.js';
import { describesRun } from '../queue/run-identity.js';
import { removeCondition, setCondition } from './conditions.js';

/** What the run says the status must be after one moment of it, in kstatus terms. */
export interface DesiredStatus {
  generation: number;
  issuedAt?: string;
  state: DirectiveState;
  error: string;
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
 * The whole status after `desired`, over the status as last read. Pure: `now` fixes the
 * lastTransitionTime of a condition whose status changes, so a 409's re-projection writes the
 * same thing. A status of another run is replaced (podsBounced starts empty).
 */
export function project(
  before: DirectiveStatus,
  desired: DesiredStatus,
  now: Date,
): DirectiveStatus {
  const fresh = !describesRun(before, desired);
  if (desired.onlyIf !== undefined && !desired.onlyIf(before, fresh)) return before;
  const pods = withPods(fresh ? [] : before.podsBounced, desired.podsBounced);
  if (!fresh && failedByAnother(before, desired)) return { ...before, podsBounced: pods };
  // Texts from elsewhere (an alert name, an API server's answer) are cut far inside the CRD's limit.
  const r = { ...desired.ready, message: boundedText(desired.ready.message, STATUS_TEXT_BYTES) };
  const error = boundedText(desired.error, STATUS_TEXT_BYTES);
  const generation = { observedGeneration: desired.generation };
  let conditions = setCondition(before.conditions, { type: 'Ready', ...generation, ...r }, now);
  conditions = desired.reconciling
    ? setCondition(conditions, { type: 'Reconciling', ...generation, ...r, status: 'True' }, now)
    : removeCondition(conditions, 'Reconciling');
  conditions =
    desired.stalled === undefined
      ? removeCondition(conditions, 'Stalled')
      : setCondition(
          conditions,
          {
            type: 'Stalled',
            status: 'True',
            ...generation,
            reason: desired.stalled,
            message: error,
          },
          now,
        );
  return {
    ...before,
    ...generation,
    issuedAt: desired.issuedAt ?? (fresh ? undefined : before.issuedAt),
    state: desired.state,
    error,
    podsBounced: pods,
    conditions,
  };
}

/**
 * The merge patch that turns `before` into `after`: the fields that differ (a field removed is
 * null), with observedGeneration; undefined when nothing differs (no write, no Event). Conditions
 * compare as a list: `project` keeps their order, adding new ones at the end.
 */
export function diff(before: DirectiveStatus, after: DirectiveStatus): DirectiveStatus | undefined {
  const patch: Record<string, unknown> = {};
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys as Set<keyof DirectiveStatus>) {
    const is = after[key] ?? undefined;
    if (!isDeepStrictEqual(before[key] ?? undefined, is)) patch[key] = is ?? null;
  }
  if (Object.keys(patch).length === 0) return undefined;
  return { observedGeneration: after.observedGeneration, ...patch };
}

/**
 * What a moment says: the status it asks for, and the Kubernetes Event that tells a person what
 * happened (none for a progress message).
 */
export interface Said {
  desired: DesiredStatus;
  event?: DirectiveEvent;
  /** The Event, when it depends on the status before the write (read, never after a patch). */
  eventFor?: (before: DirectiveStatus) => DirectiveEvent | undefined;
}

/**
 * A status transition: given the status as last read, the merge patch to write (or undefined when
 * the status already says it), and its Event. Transitions are pure so that a 409 can simply
 * re-read and re-apply them.
 */
export interface Transition extends Omit<Said, 'desired'> {
  describe: string;
  /** The run's last word: FINISHED or FAILED. */
  ends: boolean;
  patch(current: DirectiveStatus): DirectiveStatus | undefined;
}

/** The Event that tells a transition written over `before`. */
export function eventOf(
  transition: Transition,
  before: DirectiveStatus,
): DirectiveEvent | undefined {
  return transition.eventFor?.(before) ?? transition.event;
}

/** The transition that writes what a moment says; `now` fixes its lastTransitionTimes. */
export function transition(
  describe: string,
  { desired, ...told }: Said,
  now: Date = new Date(),
): Transition {
  const ends = desired.state === 'FINISHED' || desired.state === 'FAILED';
  return {
    describe,
    ends,
    patch: (current) => diff(current, project(current, desired, now)),
    ...told,
  };
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

/** The list with one selector's pods set; each index before it holds a list, if only empty. */
function withPods(
  list: BouncedPods[] | undefined,
  entry: DesiredStatus['podsBounced'],
): BouncedPods[] | undefined {
  if (entry === undefined) return list;
  const next = [...(list ?? [])];
  while (next.length < entry.index) next.push({ bouncedPods: [] });
  next[entry.index] = { bouncedPods: entry.names };
  return next;
}
