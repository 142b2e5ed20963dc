import type { DirectiveStatus } from '../directive/types.js';
import type { DirectiveEvent } from '../kube/gateway.js';
import { eventOf } from './projection.js';
import type { TransitionWritten, Written } from './written.js';

/** Kubernetes Event messages are cut at 1 KiB by most readers; a merged one stays under it. */
const EVENT_MESSAGE_MAX = 1000;

/** Transitions written as one merge patch, the Events that tell them, and each step as written. */
export interface Composed {
  patch: DirectiveStatus;
  events: DirectiveEvent[];
  /** Each transition over the status before it, with its own Event: what observers are told. */
  steps: Omit<TransitionWritten, 'directive'>[];
}

/** A merge patch applied to a status: top-level fields replace, as the API server does. */
function merged(status: DirectiveStatus, patch: DirectiveStatus): DirectiveStatus {
  return { ...status, ...patch };
}

/**
 * Several transitions as one patch: each is applied over the status the ones before it make, so
 * the patch says what writing them one after another would have, without the writes between.
 * Undefined when none changes anything.
 */
export function composed(entries: Written[], current: DirectiveStatus): Composed | undefined {
  let status = current;
  let patch: DirectiveStatus = {};
  const steps: Composed['steps'] = [];
  for (const { target, transition } of entries) {
    const step = transition.patch(status);
    if (step === undefined) continue;
    const event = eventOf(transition, status);
    steps.push({ target, transition, before: status, event });
    status = merged(status, step);
    patch = merged(patch, step);
  }
  if (steps.length === 0) return undefined;
  return { patch, events: eventsOf(steps), steps };
}

/**
 * One Event per type and reason: the selectors that chose their pods in the same write are told
 * in one `PodsSelected`, their messages joined, so a run of hundreds of selectors records a few
 * Events a second, not one per selector.
 */
export function eventsOf(steps: { event: DirectiveEvent | undefined }[]): DirectiveEvent[] {
  const groups = new Map<string, DirectiveEvent[]>();
  for (const { event } of steps) {
    if (event === undefined) continue;
    const key = `${event.type} ${event.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), event]);
  }
  return [...groups.values()].map((events) =>
    events.length === 1 ? events[0]! : { ...events[0]!, message: joined(events) },
  );
}

/** Each message a sentence of its own: "selector 3: aborted" and "selector 4: aborted" do not run on. */
function sentence(message: string): string {
  return /[.!?]$/.test(message) ? message : `${message}.`;
}

function joined(events: DirectiveEvent[]): string {
  const kept: string[] = [];
  let length = 0;
  for (const message of events.map((event) => sentence(event.message))) {
    if (length + message.length + 1 > EVENT_MESSAGE_MAX - 40) break;
    kept.push(message);
    length += message.length + 1;
  }
  const left = events.length - kept.length;
  return left === 0 ? kept.join(' ') : `${kept.join(' ')} (and ${left} more like these)`;
}
