import { KubeConfig, Watch } from '@kubernetes/client-node';
import { isPodReady, isTerminating } from '../../src/sim/pod-factory.js';
import type { Harness } from './harness.js';

export interface AvailabilityProbe {
  /** Most pods of the selector found unavailable at once (expected minus Ready and not terminating). */
  readonly maxUnavailable: number;
  /** Pod events seen, each followed by a sample. */
  readonly samples: number;
  stop(): void;
}

/**
 * Watches a namespace's pods over HTTP with client-node and, on every pod event, samples the
 * simulator's own state: how many of the `expected` pods matching `labels` are not available
 * (not Ready, or terminating, or gone). The maximum is what the batch bound must hold.
 */
export async function probeAvailability(
  h: Harness,
  namespace: string,
  labels: Record<string, string>,
  expected: number,
): Promise<AvailabilityProbe> {
  const probe = { maxUnavailable: 0, samples: 0, stop: (): void => undefined };
  const sample = (): void => {
    const available = h.sim
      .listPods(namespace, labels)
      .filter((pod) => isPodReady(pod) && !isTerminating(pod)).length;
    probe.samples += 1;
    probe.maxUnavailable = Math.max(probe.maxUnavailable, expected - available);
  };
  probe.stop = await onPodEvents(h, namespace, sample);
  return probe;
}

/**
 * Calls `sample` on every pod event of the namespace (a client-node watch over HTTP, re-opened
 * when it ends) and on every deletion (in process, the moment it happens); answers the stop.
 */
export async function onPodEvents(
  h: Harness,
  namespace: string,
  sample: () => void,
): Promise<() => void> {
  const kc = new KubeConfig();
  kc.loadFromString(h.sim.kubeconfigYaml());
  let stopped = false;
  let request: { abort(): void } | undefined;
  const start = async (): Promise<void> => {
    if (stopped) return;
    request = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/pods`,
      {},
      () => sample(),
      () => void start(),
    );
  };
  await start();
  const unsubscribe = h.sim.onPodDeleted(() => sample());
  return (): void => {
    stopped = true;
    unsubscribe();
    request?.abort();
  };
}
