import type { DirectiveStatus } from '../directive/types.js';
import type { DirectiveEvent } from '../kube/gateway.js';
import { describesRun } from '../queue/run-identity.js';
import { readyOf } from './changes.js';
import { closedGateText } from './gate-change.js';
import { transition, type DesiredStatus, type Said, type Transition } from './projection.js';
import { countsLabel, messageOf, selectorLabel, type Counts, type RunRef } from './run-messages.js';

export type { Counts, RunRef, RunSummary } from './run-messages.js';

/**
 * What happened in a selector job, as the workflow reports it. Which status that means (state,
 * conditions, Event) is decided here and only here (DESIGN §4, status table).
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
export const isProgressOnly = (moment: Moment): boolean =>
  moment.kind === 'batchBounced' || moment.kind === 'waiting';

/** A batch sent: the job's next report usually supersedes it at once (workflow/held-reports.ts). */
export const isProvisional = (moment: Moment): boolean => moment.kind === 'batchBounced';

/** Moments after which the run says nothing more. */
export const isFinal = (moment: Moment): boolean =>
  moment.kind === 'finished' || moment.kind === 'failed' || moment.kind === 'aborted';

/**
 * The run was accepted (ingest writes it; the worker too when the api could not): PENDING, Ready
 * False `Pending`, Reconciling True. A status that already describes this run is left alone.
 */
export function accepted(generation: number, selectors: number, issuedAt?: string): Transition {
  const desired: DesiredStatus = {
    generation,
    issuedAt,
    state: 'PENDING',
    error: '',
    ready: {
      status: 'False',
      reason: 'Pending',
      message: `queued: ${selectors} selector(s) to bounce`,
    },
    reconciling: true,
    onlyIf: (_current, fresh) => fresh,
  };
  // An event or, in controller mode, the directive itself: the run is what was accepted, and its
  // issuance tells the rounds of a rotation apart in `kubectl describe pbd`.
  const issued = issuedAt === undefined ? '' : ` (issued ${issuedAt})`;
  const message = `Run accepted for generation ${generation}${issued}: ${selectors} pod selector(s) queued.`;
  return transition('accepted', {
    desired,
    event: { type: 'Normal', reason: 'Accepted', message },
  });
}

/**
 * The transition a moment is. `now` fixes lastTransitionTime, so that a re-applied transition
 * (after a 409) writes the same thing.
 */
export function transitionFor(run: RunRef, moment: Moment, now: Date = new Date()): Transition {
  const describe = moment.kind === 'batchBounced' ? 'batch bounced' : moment.kind;
  return transition(describe, said(run, moment), now);
}

/** What a moment says of the run: the status it asks for, and the Event that tells it. */
function said(run: RunRef, moment: Moment): Said {
  const told = (desired: DesiredStatus, reason: string, warning = false): Said => ({
    desired,
    event: { type: warning ? 'Warning' : 'Normal', reason, message: desired.ready.message },
  });
  const start = startEvent(run);
  // A first report of the run (or of its retry) also tells that it started.
  const ifStart = (before: DirectiveStatus): DirectiveEvent | undefined =>
    notYetBouncing(before, !describesRun(before, run)) ? start : undefined;
  switch (moment.kind) {
    case 'started':
      return {
        desired: { ...bouncing(run, 'Bouncing', 'started'), onlyIf: notYetBouncing },
        event: start,
      };
    case 'chosen':
      return chosen(run, moment.names, ifStart);
    case 'batchBounced':
      return { desired: bouncing(run, 'Bouncing', countsLabel(moment.counts)) };
    case 'waiting':
      return { ...waiting(run, moment), eventFor: ifStart };
    case 'gated':
      return gated(run, moment);
    case 'paused':
      return told(bouncing(run, 'Paused', `paused (${countsLabel(moment.counts)})`), 'Paused');
    case 'resumed':
      return told(bouncing(run, 'Bouncing', `resumed (${countsLabel(moment.counts)})`), 'Resumed');
    case 'finished': {
      const message = `all ${run.selectorCount} selector(s) bounced`;
      const ready = { status: 'True' as const, reason: 'Finished', message };
      return {
        desired: ofRun(run, { state: 'FINISHED', error: '', ready, reconciling: false }),
        event: {
          type: 'Normal',
          reason: 'Finished',
          message: `Every selector of generation ${run.generation} has been bounced.`,
        },
      };
    }
    case 'failed':
      return told(ended(run, 'Failed', moment.cause, moment.selector), 'Failed', true);
    case 'aborted':
      return told(ended(run, 'Aborted', 'aborted'), 'Aborted', true);
  }
}

/** The status of one selector's moment (`selectorIndex` only matters while BOUNCING_PODS). */
function ofRun(
  run: RunRef,
  says: Pick<DesiredStatus, 'state' | 'error' | 'ready' | 'reconciling' | 'stalled'>,
): DesiredStatus {
  const { generation, issuedAt, selectorIndex } = run;
  return { generation, issuedAt, selectorIndex, ...says };
}

function bouncing(run: RunRef, reason: string, message: string): DesiredStatus {
  const ready = { status: 'False' as const, reason, message: messageOf(run, message) };
  return ofRun(run, { state: 'BOUNCING_PODS', error: '', ready, reconciling: true });
}

function ended(
  run: RunRef,
  reason: 'Failed' | 'Aborted',
  cause: string,
  selector = run.selectorIndex,
): DesiredStatus {
  const error = `selector ${selector}: ${cause}`;
  const ready = { status: 'False' as const, reason, message: error };
  return ofRun(run, { state: 'FAILED', error, ready, reconciling: false, stalled: reason });
}

/** A run already BOUNCING_PODS without a failure keeps its message: "started" changes nothing. */
function notYetBouncing(current: DirectiveStatus, fresh: boolean): boolean {
  return fresh || current.state !== 'BOUNCING_PODS' || (current.error ?? '') !== '';
}

function startEvent(run: RunRef): DirectiveEvent {
  const message = `Bouncing pods of generation ${run.generation}, starting at selector ${run.selectorIndex}.`;
  return { type: 'Normal', reason: 'Bouncing', message };
}

function chosen(run: RunRef, names: string[], ifStart: Said['eventFor'] & {}): Said {
  const none = names.length === 0;
  const message = none
    ? 'no pod matches; nothing to bounce'
    : countsLabel({ bounced: 0, chosen: names.length });
  const desired = {
    ...bouncing(run, 'Bouncing', message),
    podsBounced: { index: run.selectorIndex, names },
  };
  const event: DirectiveEvent = none
    ? {
        type: 'Warning',
        reason: 'NoPodsChosen',
        message: `${selectorLabel(run)}: no pod matches the selector (or every match is terminating or newer than issuedAt); nothing bounced.`,
      }
    : {
        type: 'Normal',
        reason: 'PodsSelected',
        message: `Selector ${run.selectorIndex}: bouncing ${names.length} pod(s): ${preview(names)}.`,
      };
  // The first selector's choice is also the run's start: one write, one Event that tells both.
  const eventFor = (before: DirectiveStatus): DirectiveEvent => {
    const start = ifStart(before);
    return start === undefined
      ? event
      : { ...start, type: event.type, message: `${start.message} ${event.message}` };
  };
  return { desired, event, eventFor };
}

function preview(names: string[]): string {
  const shown = names.slice(0, 10).join(', ');
  return names.length > 10 ? `${shown} and ${names.length - 10} more` : shown;
}

function waiting(run: RunRef, moment: Extract<Moment, { kind: 'waiting' }>): Said {
  const paused = moment.paused === true;
  const parts = [
    paused ? 'paused' : undefined,
    moment.counts && countsLabel(moment.counts),
    moment.what === undefined ? undefined : `waiting for ${moment.what}`,
  ];
  const message = parts.filter((part) => part !== undefined).join('; ');
  return { desired: bouncing(run, paused ? 'Paused' : 'Waiting', message) };
}

/** A gate closed: Ready says Gated and why; one Event per closing, not one per evaluation. */
function gated(run: RunRef, moment: Extract<Moment, { kind: 'gated' }>): Said {
  const closed = closedGateText(moment.gate, moment.why);
  const message = [moment.counts && countsLabel(moment.counts), closed].filter(Boolean).join('; ');
  const event: DirectiveEvent = {
    type: 'Normal',
    reason: 'Gated',
    message: `${selectorLabel(run)}: ${closed}`,
  };
  const eventFor = (before: DirectiveStatus): DirectiveEvent | undefined =>
    readyOf(before)?.reason === 'Gated' && describesRun(before, run) ? undefined : event;
  return { desired: bouncing(run, 'Gated', message), eventFor };
}
