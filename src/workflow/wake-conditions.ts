/**
 * What a parked job waits for, and how a watch event decides it: the pure half of the wake-ups,
 * with no job or watch in sight.
 */

import { createHash } from 'node:crypto';
import type { Job } from 'bullmq';
import { matchesLabels } from '../directive/syntax.js';
import type { ObjectRef } from '../directive/types.js';
import type { PodJson } from '../kube/pods.js';

/** What a parked job waits for, in terms a watch event can decide. */
export type WakeCondition =
  | {
      kind: 'replicas';
      namespace: string;
      labels: Record<string, string>;
      wanted: number;
      /** Uids that do not count (the pods this selector bounced). */
      exclude: string[];
      /** When set, pods created before it (epoch ms) do not count: older than the first bounce. */
      since?: number;
    }
  /** A ConfigMap key whose sha256 must become `digest` (the Secret's value, never kept itself). */
  | { kind: 'configMapKey'; ref: ObjectRef; key: string; digest: string }
  /** Any pod of the namespace turning Ready (a PodDisruptionBudget may allow an eviction now). */
  | { kind: 'podReady'; namespace: string }
  /** The directive no longer paused (its pause annotation removed or not "true"). */
  | { kind: 'resumed'; ref: ObjectRef };

export interface Waiter {
  job: Job;
  condition: WakeCondition;
  /** replicas: the qualifying pods seen so far. */
  ready: Set<string>;
  /** replicas: the uids that do not count, as a set (a selector may have thousands). */
  excluded: Set<string>;
}

/** sha256 of a root certificate, the only form in which a waiter remembers it. */
export function digestOf(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Where a waiter is filed: by the object it watches, and for pods by their first label. */
export function bucketKey(condition: WakeCondition): string {
  if (condition.kind === 'resumed') {
    return `directives/${condition.ref.namespace}/${condition.ref.name}`;
  }
  if (condition.kind === 'configMapKey') {
    return `configmaps/${condition.ref.namespace}/${condition.ref.name}`;
  }
  if (condition.kind === 'podReady') return `pods/${condition.namespace}/`;
  const first = firstLabel(condition.labels);
  return first === undefined
    ? `pods/${condition.namespace}/`
    : `pods/${condition.namespace}/${first[0]}=${first[1]}`;
}

/** The label a replicas waiter is filed under: the first key in sorted order. */
export function firstLabel(labels: Record<string, string>): [string, string] | undefined {
  const [first] = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1));
  return first;
}

/** What a pod event tells a waiter. */
export interface SeenPod {
  uid: string;
  labels: Record<string, string>;
  /** Ready and not terminating (and not deleted). */
  qualifies: boolean;
  /** creationTimestamp, epoch ms. */
  createdAt: number;
}

export function seenPod(change: string, pod: PodJson, labels: Record<string, string>): SeenPod {
  const metadata = pod.metadata ?? {};
  const ready = pod.status?.conditions?.some(
    (condition) => condition.type === 'Ready' && condition.status === 'True',
  );
  const terminating =
    metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null;
  return {
    uid: metadata.uid ?? '',
    labels,
    qualifies: change !== 'delete' && ready === true && !terminating,
    createdAt: new Date(metadata.creationTimestamp ?? 0).getTime(),
  };
}

/**
 * Whether a pod counts for a replicas waiter: it qualifies, is not excluded, and was created in
 * or after `since` when the waiter has one.
 */
export function counts(waiter: Waiter, pod: SeenPod): boolean {
  const { condition } = waiter;
  const since = condition.kind === 'replicas' ? condition.since : undefined;
  const young = since === undefined || pod.createdAt >= since;
  return pod.qualifies && young && !waiter.excluded.has(pod.uid);
}

/** Whether a waiter's condition holds after this pod change (a replicas waiter counts it). */
export function podChanged(waiter: Waiter, pod: SeenPod): boolean {
  const { condition } = waiter;
  if (condition.kind === 'podReady') return pod.qualifies;
  if (condition.kind !== 'replicas' || !matchesLabels(pod.labels, condition.labels)) return false;
  if (counts(waiter, pod)) waiter.ready.add(pod.uid);
  else waiter.ready.delete(pod.uid);
  return waiter.ready.size >= condition.wanted;
}
