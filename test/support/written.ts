// A transition as the status writer hands it to its observers (metrics, notifications): applied
// to the status it was written over, with the Event that told it.
import type { Directive, DirectiveStatus } from '../../src/directive/types.js';
import type { RunRef } from '../../src/status/moments.js';
import { eventOf, type Transition } from '../../src/status/projection.js';
import type { TransitionWritten } from '../../src/status/writer.js';

export function selectorRun(selectorIndex: number, selectorCount = 2, generation = 3): RunRef {
  return {
    generation,
    selectorIndex,
    selectorCount,
    selector: { namespace: 'ns', labels: { app: 'a' } },
  };
}

export function writtenTransition(
  transition: Transition,
  before: DirectiveStatus,
  target: TransitionWritten['target'],
): TransitionWritten {
  const directive: Directive = {
    apiVersion: 'internal.gloo.solo.io/v2',
    kind: 'PodBounceDirective',
    metadata: { ...target, resourceVersion: '9' },
    spec: { podsToBounce: [] },
    status: { ...before, ...transition.patch(before) },
  };
  return { target, transition, before, event: eventOf(transition, before), directive };
}
