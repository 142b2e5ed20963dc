// Plain-JSON shapes of the objects the simulator stores and serves, as the API returns them.
// The directive's own types are pod-bouncer's (type-only: the simulator runs on its own).
import type {
  DirectiveState,
  DirectiveStatus,
  ObjectRef,
  PodSelector,
  RootCertSync,
} from '../directive/types.js';

export type { DirectiveState, DirectiveStatus, ObjectRef, RootCertSync };

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Metadata as clients may send it: everything optional except what the route supplies. */
export interface ObjectMetaInput {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  [key: string]: unknown;
}

/** Metadata of a stored object: the server always fills these in. */
export interface ObjectMeta extends ObjectMetaInput {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
}

export interface PodObject extends KubeObject {
  metadata: ObjectMeta & { labels: Record<string, string> };
  spec: {
    containers: Array<{ name: string; image: string }>;
    nodeName: string;
    terminationGracePeriodSeconds: number;
    [key: string]: unknown;
  };
  status: {
    phase: string;
    conditions: PodCondition[];
    [key: string]: unknown;
  };
}

/** A selector as stored: the CRD leaves waitForReplicas out when the client did. */
export type PodSelectorSpec = Omit<PodSelector, 'waitForReplicas'> & { waitForReplicas?: number };

export interface DirectiveObject extends KubeObject {
  metadata: ObjectMeta & { generation: number };
  spec: { meshRef?: ObjectRef; podsToBounce: PodSelectorSpec[] };
  status?: DirectiveStatus;
}

/** The owner reference marked `controller`, if any. */
export function controllerRef(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

/** Second-precision RFC 3339, the way Kubernetes serialises metav1.Time. */

export function rfc3339(at: number | Date = Date.now()): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export { isRecord as isPlainObject } from '../records.js';
