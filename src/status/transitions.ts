import type { BouncedPods, DirectiveStatus } from '../directive/types.js';
import type { DirectiveEvent } from '../kube/gateway.js';

/**
 * A status transition: given the status as last read, the merge patch to write (or undefined when
 * the status already says it), and the Kubernetes Event that tells a person what happened.
 * Transitions are pure so that a 409 can simply re-read and re-apply them.
 */
export interface Transition {
  describe: string;
  patch(current: DirectiveStatus): DirectiveStatus | undefined;
  event: DirectiveEvent;
}

/** A run accepted; a second run of the same generation (a later `issuedAt`) is written too. */
export function accepted(generation: number, selectors: number, issuedAt?: string): Transition {
  return {
    describe: 'accepted',
    patch: (current) =>
      current.observedGeneration === generation && (current.issuedAt ?? undefined) === issuedAt
        ? undefined
        : {
            observedGeneration: generation,
            issuedAt: issuedAt ?? null,
            state: 'PENDING',
            error: '',
            podsBounced: [],
          },
    event: {
      type: 'Normal',
      reason: 'Accepted',
      message: `Cert-issued event accepted for generation ${generation}: ${selectors} pod selector(s) queued.`,
    },
  };
}

/** `issuedAt` names the run: a status of another run of the same generation starts afresh. */
export function bouncing(generation: number, selectorIndex: number, issuedAt?: string): Transition {
  return {
    describe: 'bouncing',
    patch: (current) => {
      const otherRun = issuedAt !== undefined && current.issuedAt !== issuedAt;
      if (
        current.observedGeneration === generation &&
        current.state === 'BOUNCING_PODS' &&
        !otherRun
      ) {
        return undefined;
      }
      const fresh = current.observedGeneration !== generation || otherRun;
      return {
        observedGeneration: generation,
        ...(issuedAt !== undefined ? { issuedAt } : {}),
        state: 'BOUNCING_PODS',
        error: '',
        ...(fresh ? { podsBounced: [] } : {}),
      };
    },
    event: {
      type: 'Normal',
      reason: 'Bouncing',
      message: `Bouncing pods of generation ${generation}, starting at selector ${selectorIndex}.`,
    },
  };
}

export function podsChosen(generation: number, selectorIndex: number, names: string[]): Transition {
  return {
    describe: 'pods chosen',
    patch: (current) => {
      const list: BouncedPods[] =
        current.observedGeneration === generation ? [...(current.podsBounced ?? [])] : [];
      const existing = list[selectorIndex];
      if (existing && sameNames(existing.bouncedPods, names)) return undefined;
      while (list.length < selectorIndex) list.push({ bouncedPods: [] });
      list[selectorIndex] = { bouncedPods: names };
      return { observedGeneration: generation, podsBounced: list };
    },
    event: {
      type: 'Normal',
      reason: 'PodsSelected',
      message: `Selector ${selectorIndex}: bouncing ${names.length} pod(s)${names.length ? `: ${preview(names)}` : ''}.`,
    },
  };
}

export function finished(generation: number): Transition {
  return {
    describe: 'finished',
    patch: (current) =>
      current.observedGeneration === generation && current.state === 'FINISHED'
        ? undefined
        : { observedGeneration: generation, state: 'FINISHED', error: '' },
    event: {
      type: 'Normal',
      reason: 'Finished',
      message: `Every selector of generation ${generation} has been bounced.`,
    },
  };
}

export function failed(generation: number, selectorIndex: number, cause: string): Transition {
  const error = `selector ${selectorIndex}: ${cause}`;
  return {
    describe: 'failed',
    patch: (current) =>
      current.observedGeneration === generation &&
      current.state === 'FAILED' &&
      current.error === error
        ? undefined
        : { observedGeneration: generation, state: 'FAILED', error },
    event: { type: 'Warning', reason: 'Failed', message: error },
  };
}

function sameNames(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((name, index) => name === b[index]);
}

function preview(names: string[]): string {
  const shown = names.slice(0, 10).join(', ');
  return names.length > 10 ? `${shown} and ${names.length - 10} more` : shown;
}
