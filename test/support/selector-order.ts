import { isPodReady, isTerminating } from '../../src/sim/pod-factory.js';
import { onPodEvents } from './availability.js';
import type { Harness } from './harness.js';

/** One selector of the probed directive: its labels in the namespace and its originals. */
export interface ProbedSelector {
  labels: Record<string, string>;
  waitForReplicas: number;
  originals: Set<string>;
}

export interface OrderProbe {
  /** Most selectors seen in progress at once (a lower bound at each sample: see below). */
  readonly peak: number;
  /** Rule broken at the moment a selector's first pod went: "s3 before s1 was done", ... */
  readonly violations: string[];
  readonly samples: number;
  stop(): void;
}

/**
 * Samples DESIGN §4 Order at every pod event of the namespace (a client-node watch) and at every
 * deletion (in process, as it happens). A selector counts as in progress from its first original
 * pod gone to its last: a lower bound of pod-bouncer's own "in progress", which also holds while
 * its last replacements come up, so a count above the limit is a real breach. When a selector's
 * first pod goes, every earlier barrier (waitForReplicas > 0) must be done — all its originals
 * gone and as many Ready replacements as it waits for — and, for a barrier, every earlier
 * selector too.
 */
export async function probeOrder(
  h: Harness,
  namespace: string,
  selectors: ProbedSelector[],
): Promise<OrderProbe> {
  const probe = { peak: 0, samples: 0, violations: [] as string[], stop: (): void => undefined };
  const started = new Set<number>();
  const pods = (): ReturnType<Harness['sim']['listPods']> => h.sim.listPods(namespace);
  const sample = (): void => {
    const live = pods();
    const gone = (s: ProbedSelector): number =>
      [...s.originals].filter(
        (uid) => !live.some((pod) => pod.metadata.uid === uid && !isTerminating(pod)),
      ).length;
    const ready = (s: ProbedSelector): number =>
      live.filter(
        (pod) =>
          Object.entries(s.labels).every(([key, value]) => pod.metadata.labels?.[key] === value) &&
          !s.originals.has(pod.metadata.uid) &&
          isPodReady(pod) &&
          !isTerminating(pod),
      ).length;
    const done = (s: ProbedSelector): boolean =>
      gone(s) === s.originals.size && ready(s) >= s.waitForReplicas;
    probe.samples += 1;
    let inProgress = 0;
    selectors.forEach((selector, index) => {
      const count = gone(selector);
      if (count > 0 && !started.has(index)) {
        started.add(index);
        const barrier = selector.waitForReplicas > 0;
        selectors.slice(0, index).forEach((earlier, before) => {
          if ((barrier || earlier.waitForReplicas > 0) && !done(earlier)) {
            probe.violations.push(`s${index} started before s${before} was done`);
          }
        });
      }
      if (count > 0 && count < selector.originals.size) inProgress += 1;
    });
    probe.peak = Math.max(probe.peak, inProgress);
  };
  probe.stop = await onPodEvents(h, namespace, sample);
  return probe;
}
