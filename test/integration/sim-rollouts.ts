// Shared setup for the simulator's rollout tests: client-node's AppsV1Api, a pod tracker that
// replays a watch into every intermediate state, and kubectl's completeness rule.
import { AppsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import { rolloutStatus } from '../../src/kube/rollout-status.js';
import type { RolloutKind } from '../../src/kube/rollout-status.js';
import { recordWatch, startWithClients, waitFor } from './sim-clients.js';
import type { SimClients } from './sim-clients.js';
import type { SimulatorOptions } from '../../src/sim/index.js';

export interface AppsClients extends SimClients {
  apps: AppsV1Api;
}

export async function startWithApps(options: SimulatorOptions = {}): Promise<AppsClients> {
  const c = await startWithClients(options);
  return { ...c, apps: c.kc.makeApiClient(AppsV1Api) };
}

export const STRATEGIC = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
export const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** What `kubectl rollout restart` sends. */
export function restartPatch(at: string): object {
  return {
    spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': at } } } },
  };
}

/** One moment of a workload's pods, as replayed from the watch. */
export interface PodSample {
  /** Pods not terminating. */
  live: number;
  /** Pods not terminating and Ready. */
  ready: number;
  names: string[];
  /** Live pods per node. */
  perNode: Map<string, number>;
  /** Nodes with a live Ready pod. */
  readyNodes: Set<string>;
}

export interface PodTracker {
  samples: PodSample[];
  /** Pod names in the order they started terminating (or vanished). */
  deletedInOrder: string[];
  /** Pod names in the order they were created. */
  createdInOrder: string[];
  stop(): void;
}

function isReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Lists the pods, then replays every watch event after the list into a sample of the state. */
export async function trackPods(
  c: AppsClients,
  namespace: string,
  labelSelector: string,
): Promise<PodTracker> {
  const list = await c.core.listNamespacedPod({ namespace, labelSelector });
  const pods = new Map<string, V1Pod>(list.items.map((p) => [p.metadata!.uid!, p]));
  const tracker: PodTracker = {
    samples: [],
    deletedInOrder: [],
    createdInOrder: [],
    stop: () => undefined,
  };
  const gone = new Set<string>();
  const watch = await recordWatch(c.kc, `/api/v1/namespaces/${namespace}/pods`, {
    labelSelector,
    resourceVersion: list.metadata!.resourceVersion!,
  });
  let seen = 0;
  const timer = setInterval(() => {
    for (; seen < watch.events.length; seen++) {
      const { type, object } = watch.events[seen]!;
      const pod = object as unknown as V1Pod;
      const uid = pod.metadata!.uid!;
      if (type === 'ADDED') tracker.createdInOrder.push(pod.metadata!.name!);
      const leaving = type === 'DELETED' || pod.metadata?.deletionTimestamp !== undefined;
      if (leaving && !gone.has(uid)) {
        gone.add(uid);
        tracker.deletedInOrder.push(pod.metadata!.name!);
      }
      if (type === 'DELETED') pods.delete(uid);
      else pods.set(uid, pod);
      tracker.samples.push(sample([...pods.values()]));
    }
  }, 5);
  tracker.stop = () => {
    clearInterval(timer);
    watch.stop();
  };
  return tracker;
}

function sample(pods: V1Pod[]): PodSample {
  const live = pods.filter((p) => p.metadata?.deletionTimestamp === undefined);
  const ready = live.filter(isReady);
  const perNode = new Map<string, number>();
  for (const pod of live)
    perNode.set(pod.spec!.nodeName!, (perNode.get(pod.spec!.nodeName!) ?? 0) + 1);
  return {
    live: live.length,
    ready: ready.length,
    names: live.map((p) => p.metadata!.name!).sort(),
    perNode,
    readyNodes: new Set(ready.map((p) => p.spec!.nodeName!)),
  };
}

/** Reads a workload through client-node's AppsV1Api. */
export function readWorkload(
  c: AppsClients,
  kind: RolloutKind,
  namespace: string,
  name: string,
): Promise<object> {
  if (kind === 'Deployment') return c.apps.readNamespacedDeployment({ namespace, name });
  if (kind === 'StatefulSet') return c.apps.readNamespacedStatefulSet({ namespace, name });
  return c.apps.readNamespacedDaemonSet({ namespace, name });
}

/** Polls through the API until `kubectl rollout status` would report the rollout complete. */
export async function waitForRollout(
  c: AppsClients,
  kind: RolloutKind,
  namespace: string,
  name: string,
  timeoutMs = 10_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = rolloutStatus(kind, await readWorkload(c, kind, namespace, name));
    if (state.done) return state.message;
    if (Date.now() > deadline) throw new Error(`${kind} ${namespace}/${name}: ${state.message}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits until the tracker has replayed every pod event the simulator emitted so far. */
export async function settle(
  c: AppsClients,
  tracker: PodTracker,
  namespace: string,
  labels: Record<string, string>,
): Promise<void> {
  await waitFor(() => {
    const names = c.sim
      .listPods(namespace, labels)
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name)
      .sort();
    const last = tracker.samples.at(-1);
    return last !== undefined && JSON.stringify(last.names) === JSON.stringify(names);
  });
}
