import type { DirectiveEvent } from '../kube/gateway.js';
import type { Transition } from '../status/transitions.js';

/**
 * Two transitions that fall due at the same moment, written as one merge patch with one Event
 * that tells both (or only the one that changed anything). The first selector's "BOUNCING_PODS"
 * and "pods chosen" are such a pair: one write instead of two, and the write no longer races the
 * api's PENDING write (the select LIST in between gives the watch time to deliver it).
 */
export function combined(first: Transition, second: Transition): Transition {
  let firstChanged = true;
  return {
    describe: `${first.describe} + ${second.describe}`,
    patch(current) {
      const before = first.patch(current);
      firstChanged = before !== undefined;
      const after = second.patch({ ...current, ...before });
      if (before === undefined) return after;
      return { ...before, ...after };
    },
    get event(): DirectiveEvent {
      if (!firstChanged) return second.event;
      return {
        type: second.event.type,
        reason: first.event.reason,
        message: `${first.event.message} ${second.event.message}`,
      };
    },
  };
}
