// Shapes and helpers shared by the apps/v1 controllers (Deployment, ReplicaSet, StatefulSet,
// DaemonSet): IntOrString scaling, template hashes, ownership, and writes that skip no-ops.
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, OwnerReference, PodObject } from './objects.js';
import { isPlainObject } from './objects.js';
import { isPodReady, isTerminating } from './pod-factory.js';
import type { ObjectStore } from './store.js';

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { containers?: Array<{ name?: string }>; [key: string]: unknown };
}

export type IntOrString = number | string;

export interface WorkloadSpec {
  replicas?: number;
  selector?: { matchLabels?: Record<string, string> };
  template: PodTemplate;
  paused?: boolean;
  strategy?: {
    type?: string;
    rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString };
  };
  updateStrategy?: {
    type?: string;
    rollingUpdate?: { partition?: number; maxSurge?: IntOrString; maxUnavailable?: IntOrString };
  };
  podManagementPolicy?: string;
}

/** A Deployment, ReplicaSet, StatefulSet or DaemonSet as stored. */
export interface WorkloadObject extends KubeObject {
  spec: WorkloadSpec;
  status?: Record<string, unknown>;
}

export const STORE_KEYS = {
  Deployment: 'deployments',
  ReplicaSet: 'replicasets',
  StatefulSet: 'statefulsets',
  DaemonSet: 'daemonsets',
} as const;

export type WorkloadKind = keyof typeof STORE_KEYS;

/**
 * An IntOrString such as maxSurge: an integer as is, or a percentage of `total` rounded up or
 * down (intstr.GetScaledValueFromIntOrPercent).
 */
export function scaledValue(
  value: IntOrString | undefined,
  total: number,
  roundUp: boolean,
): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  if (!percent) return Number.parseInt(value, 10) || 0;
  const exact = (Number(percent[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** A short hash of a pod template: equal templates hash equal whatever their key order. */
export function templateHash(template: unknown): string {
  return createHash('sha256').update(canonicalJson(template)).digest('hex').slice(0, 9);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function isAvailable(pod: PodObject): boolean {
  return !isTerminating(pod) && isPodReady(pod);
}

export function ownerRefTo(owner: KubeObject): OwnerReference {
  return {
    apiVersion: 'apps/v1',
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The pods an owner controls (shared snapshots: read them, never change or keep them). */
export function ownedPods(store: ObjectStore, owner: KubeObject): PodObject[] {
  const pods: PodObject[] = [];
  store.scanControlled('pods', owner.metadata.uid, (obj) => pods.push(obj as PodObject));
  return pods;
}

/** Writes a new status unless it equals the stored one (no event, no new resourceVersion). */
export function writeStatus(
  store: ObjectStore,
  key: string,
  obj: WorkloadObject,
  status: Record<string, unknown>,
): void {
  // Read in place: the store copies what it is given to write.
  const current = store.peek(key, obj.metadata.namespace, obj.metadata.name);
  if (!current || current.metadata.uid !== obj.metadata.uid) return;
  if (isDeepStrictEqual(current.status, status)) return;
  store.update(key, { ...current, status });
}

/** Sets spec.replicas (a spec change: the generation grows). Returns the stored object. */
export function scaleTo(
  store: ObjectStore,
  key: string,
  obj: WorkloadObject,
  replicas: number,
): WorkloadObject {
  const current = store.get(key, obj.metadata.namespace, obj.metadata.name) as
    WorkloadObject | undefined;
  if (!current || current.metadata.uid !== obj.metadata.uid) return obj;
  if (current.spec.replicas === replicas) return current;
  const metadata = { ...current.metadata, generation: (current.metadata.generation ?? 0) + 1 };
  return store.update(key, {
    ...current,
    metadata,
    spec: { ...current.spec, replicas },
  }) as WorkloadObject;
}

export function replicasOf(obj: WorkloadObject): number {
  return obj.spec.replicas ?? 1;
}

export function statusNumber(obj: WorkloadObject, field: string): number {
  const value = obj.status?.[field];
  return typeof value === 'number' ? value : 0;
}

export function byCreation(a: KubeObject, b: KubeObject): number {
  const at = (o: KubeObject): string => o.metadata.creationTimestamp;
  if (at(a) !== at(b)) return at(a) < at(b) ? -1 : 1;
  return a.metadata.name < b.metadata.name ? -1 : 1;
}
