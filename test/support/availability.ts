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
  const kc = new KubeConfig();
  kc.loadFromString(h.sim.kubeconfigYaml());
  const probe = { maxUnavailable: 0, samples: 0, stop: (): void => undefined };
  const sample = (): void => {
    const available = h.sim
      .listPods(namespace, labels)
      .filter((pod) => isPodReady(pod) && !isTerminating(pod)).length;
    probe.samples += 1;
    probe.maxUnavailable = Math.max(probe.maxUnavailable, expected - available);
  };
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
  // Deletions are also sampled the moment they happen, in process.
  const unsubscribe = h.sim.onPodDeleted(() => sample());
  probe.stop = (): void => {
    stopped = true;
    unsubscribe();
    request?.abort();
  };
  return probe;
}
