import type { DirectiveStatus } from '../directive/types.js';
import type { DirectiveEvent } from '../kube/gateway.js';
import { countsLabel, messageOf, selectorLabel, type RunRef } from './run-messages.js';
export { isFinal, isProgressOnly, isProvisional, type Moment } from './moment-kinds.js';
import type { Moment } from './moment-kinds.js';
import { transition, type DesiredStatus, type Transition } from './transitions.js';

export {
  countsLabel,
  selectorLabel,
  summaryLine,
  SUMMARY_MAX,
  type Counts,
  type RunRef,
  type RunSummary,
} from './run-messages.js';

function base(run: RunRef): Pick<DesiredStatus, 'generation' | 'issuedAt'> {
  return {
    generation: run.generation,
    ...(run.issuedAt === undefined ? {} : { issuedAt: run.issuedAt }),
  };
}

function bouncingStatus(run: RunRef, reason: string, message: string): DesiredStatus {
  return {
    ...base(run),
    state: 'BOUNCING_PODS',
    error: '',
    selectorIndex: run.selectorIndex,
    ready: { status: 'False', reason, message: messageOf(run, message) },
    reconciling: true,
  };
}

/** A run already BOUNCING_PODS without a failure keeps its message: "started" changes nothing. */
function notYetBouncing(current: DirectiveStatus, fresh: boolean): boolean {
  return fresh || current.state !== 'BOUNCING_PODS' || (current.error ?? '') !== '';
}

function endedStatus(
  run: RunRef,
  reason: 'Failed' | 'Aborted',
  cause: string,
  selector = run.selectorIndex,
): DesiredStatus {
  const error = `selector ${selector}: ${cause}`;
  return {
    ...base(run),
    state: 'FAILED',
    error,
    ready: { status: 'False', reason, message: error },
    reconciling: false,
    stalled: reason,
  };
}

type Builder<K extends Moment['kind']> = (
  run: RunRef,
  moment: Extract<Moment, { kind: K }>,
  now: Date,
) => Transition;

function announced(
  describe: string,
  desired: DesiredStatus,
  now: Date,
  event?: { reason: string; message?: string; warning?: boolean },
): Transition {
  return transition(
    describe,
    desired,
    event === undefined
      ? undefined
      : {
          type: event.warning === true ? 'Warning' : 'Normal',
          reason: event.reason,
          message: event.message ?? desired.ready.message,
        },
    now,
  );
}

function waiting(run: RunRef, moment: Extract<Moment, { kind: 'waiting' }>, now: Date): Transition {
  const paused = moment.paused === true;
  const parts = [
    paused ? 'paused' : undefined,
    moment.counts === undefined ? undefined : countsLabel(moment.counts),
    moment.what === undefined ? undefined : `waiting for ${moment.what}`,
  ].filter((part) => part !== undefined);
  return {
    ...announced(
      'waiting',
      bouncingStatus(run, paused ? 'Paused' : 'Waiting', parts.join('; ')),
      now,
    ),
    // A wait before any pod was chosen (the root cert gate) is also the run's start: its Event.
    eventFor: (before) =>
      notYetBouncing(before, before.observedGeneration !== run.generation)
        ? startEvent(run)
        : undefined,
  };
}

/** A gate closed: Ready says Gated and why; one Event per closing, not one per evaluation. */
function gated(run: RunRef, moment: Extract<Moment, { kind: 'gated' }>, now: Date): Transition {
  const closed = `gate ${moment.gate} closed: ${moment.why}`;
  const parts = [moment.counts === undefined ? undefined : countsLabel(moment.counts), closed];
  const message = parts.filter((part) => part !== undefined).join('; ');
  return {
    ...announced('gated', bouncingStatus(run, 'Gated', message), now),
    eventFor: (before) =>
      before.conditions?.find((condition) => condition.type === 'Ready')?.reason === 'Gated' &&
      before.observedGeneration === run.generation
        ? undefined
        : { type: 'Normal', reason: 'Gated', message: `${selectorLabel(run)}: ${closed}` },
  };
}

function startEvent(run: RunRef): DirectiveEvent {
  return {
    type: 'Normal',
    reason: 'Bouncing',
    message: `Bouncing pods of generation ${run.generation}, starting at selector ${run.selectorIndex}.`,
  };
}

/** Each moment's transition (DESIGN §4, status table). */
const BUILDERS: { [K in Moment['kind']]: Builder<K> } = {
  started: (run, _moment, now) =>
    announced(
      'started',
      { ...bouncingStatus(run, 'Bouncing', 'started'), onlyIf: notYetBouncing },
      now,
      {
        reason: 'Bouncing',
        message: `Bouncing pods of generation ${run.generation}, starting at selector ${run.selectorIndex}.`,
      },
    ),
  chosen: (run, moment, now) => chosen(run, moment.names, now),
  batchBounced: (run, moment, now) =>
    announced('batch bounced', bouncingStatus(run, 'Bouncing', countsLabel(moment.counts)), now),
  waiting,
  gated,
  paused: (run, moment, now) =>
    announced(
      'paused',
      bouncingStatus(run, 'Paused', `paused (${countsLabel(moment.counts)})`),
      now,
      {
        reason: 'Paused',
      },
    ),
  resumed: (run, moment, now) =>
    announced(
      'resumed',
      bouncingStatus(run, 'Bouncing', `resumed (${countsLabel(moment.counts)})`),
      now,
      { reason: 'Resumed' },
    ),
  finished: (run, _moment, now) => finished(run, now),
  failed: (run, moment, now) =>
    announced('failed', endedStatus(run, 'Failed', moment.cause, moment.selector), now, {
      reason: 'Failed',
      warning: true,
    }),
  aborted: (run, _moment, now) =>
    announced('aborted', endedStatus(run, 'Aborted', 'aborted'), now, {
      reason: 'Aborted',
      warning: true,
    }),
};

/**
 * The transition a moment is (DESIGN §4, status table). `now` fixes lastTransitionTime, so that a
 * re-applied transition (after a 409) writes the same thing.
 */
export function transitionFor(run: RunRef, moment: Moment, now: Date = new Date()): Transition {
  const build = BUILDERS[moment.kind] as Builder<Moment['kind']>;
  return build(run, moment, now);
}

function chosen(run: RunRef, names: string[], now: Date): Transition {
  const none = names.length === 0;
  const message = none
    ? 'no pod matches; nothing to bounce'
    : countsLabel({ bounced: 0, chosen: names.length });
  const desired: DesiredStatus = {
    ...bouncingStatus(run, 'Bouncing', message),
    podsBounced: { index: run.selectorIndex, names },
  };
  const event = none
    ? {
        type: 'Warning' as const,
        reason: 'NoPodsChosen',
        message: `${selectorLabel(run)}: no pod matches the selector (or every match is terminating or newer than issuedAt); nothing bounced.`,
      }
    : {
        type: 'Normal' as const,
        reason: 'PodsSelected',
        message: `Selector ${run.selectorIndex}: bouncing ${names.length} pod(s): ${preview(names)}.`,
      };
  return {
    ...transition('chosen', desired, event, now),
    // The first selector's choice is also the run's start: one write, one Event that tells both.
    eventFor: (before) =>
      notYetBouncing(before, before.observedGeneration !== run.generation)
        ? {
            type: event.type,
            reason: 'Bouncing',
            message: `Bouncing pods of generation ${run.generation}, starting at selector ${run.selectorIndex}. ${event.message}`,
          }
        : event,
  };
}

function finished(run: RunRef, now: Date): Transition {
  return transition(
    'finished',
    {
      ...base(run),
      state: 'FINISHED',
      error: '',
      ready: {
        status: 'True',
        reason: 'Finished',
        message: `all ${run.selectorCount} selector(s) bounced`,
      },
      reconciling: false,
    },
    {
      type: 'Normal',
      reason: 'Finished',
      message: `Every selector of generation ${run.generation} has been bounced.`,
    },
    now,
  );
}

function preview(names: string[]): string {
  const shown = names.slice(0, 10).join(', ');
  return names.length > 10 ? `${shown} and ${names.length - 10} more` : shown;
}
