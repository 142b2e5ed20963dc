// What each apps/v1 controller may do: read its pods, create and delete them, write status.
import type { PodTemplate, WorkloadObject } from './apps-util.js';
import type { KubeObject, PodObject } from './objects.js';
import type { ObjectStore } from './store.js';

export interface NewOwnedPod {
  name: string;
  /** Labels added to the template's (revision hashes, pod name, ordinal). */
  labels?: Record<string, string>;
  nodeName?: string;
}

export interface AppsContext {
  readonly store: ObjectStore;
  /** The simulated nodes' names (a DaemonSet runs one pod on each). */
  readonly nodes: readonly string[];
  /** Every pod the owner controls, terminating ones included (shared snapshots: read only). */
  pods(owner: KubeObject): PodObject[];
  /** A name `<owner>-<5 random chars>` that no pod of the namespace has. */
  freshName(owner: KubeObject): string;
  createPod(owner: WorkloadObject, template: PodTemplate, pod: NewOwnedPod): void;
  /** Deletes a pod the way its controller does (grace period, no PodDisruptionBudget). */
  deletePod(pod: PodObject): void;
  writeStatus(obj: WorkloadObject, status: Record<string, unknown>): void;
  /**
   * Sets a ReplicaSet's spec.replicas and lets its controller act on it at once, so that the
   * pods follow the spec before the Deployment takes its next step.
   */
  scale(rs: WorkloadObject, replicas: number): WorkloadObject;
  /** Creates an object of an apps/v1 resource (a Deployment's ReplicaSet). */
  create(kind: 'ReplicaSet', body: object): WorkloadObject;
}
