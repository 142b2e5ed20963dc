// Pod lifecycle: creation, readiness, and graceful deletion (Terminating, then gone).
import { randomUUID } from 'node:crypto';
import { notFound } from './api-errors.js';
import type { DeletionLedger } from './deletions.js';
import type { Preconditions } from './object-meta.js';
import { checkPreconditions } from './object-meta.js';
import type { KubeObject, OwnerReference, PodObject } from './objects.js';
import { rfc3339 } from './objects.js';
import { buildPod, isPodReady, isTerminating, setPodReady } from './pod-factory.js';
import type { ResourceType } from './resources.js';
import type { ObjectStore } from './store.js';
import type { Timers } from './timers.js';

const PODS = 'pods';

/** What the owners' controllers decide for their pods (they follow pods through store events). */
export interface PodLifecycleHooks {
  terminationGraceMs(pod: PodObject): number;
}

export interface NewPodSpec {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  ready: boolean;
  createdAt?: Date;
  owner?: OwnerReference;
  app?: string;
  nodeName?: string;
  annotations?: Record<string, string>;
}

export interface DeleteRequest {
  preconditions?: Preconditions;
  dryRun?: boolean;
  /** Runs once the pod is known to be live and the preconditions hold (eviction: the PDB check). */
  admit?: (pod: PodObject) => void;
  /** A controller's own deletion (scale down, rollout): not a client's, so not in the ledger. */
  byController?: boolean;
}

export class PodRuntime {
  private readonly readyTimers = new Map<string, NodeJS.Timeout>();
  private hooks?: PodLifecycleHooks;
  private ipCounter = 10;

  constructor(
    private readonly store: ObjectStore,
    private readonly timers: Timers,
    private readonly ledger: DeletionLedger,
    private readonly podType: ResourceType,
  ) {}

  setHooks(hooks: PodLifecycleHooks): void {
    this.hooks = hooks;
  }

  get(namespace: string, name: string): PodObject | undefined {
    return this.store.get(PODS, namespace, name) as PodObject | undefined;
  }

  list(namespace?: string, matches?: (pod: PodObject) => boolean): PodObject[] {
    const filter = matches && ((obj: KubeObject): boolean => matches(obj as PodObject));
    return this.store.list(PODS, namespace, filter) as PodObject[];
  }

  create(spec: NewPodSpec): PodObject {
    this.ipCounter += 1;
    const podIP = `10.244.${Math.floor(this.ipCounter / 250) % 250}.${(this.ipCounter % 250) + 1}`;
    const pod = buildPod({ ...spec, uid: randomUUID(), podIP });
    return this.store.create(PODS, pod) as PodObject;
  }

  /** Makes the pod Ready after delayMs (null: never), replacing any earlier schedule. */
  scheduleReady(pod: PodObject, delayMs: number | null): void {
    const { uid } = pod.metadata;
    this.timers.cancel(this.readyTimers.get(uid));
    this.readyTimers.delete(uid);
    if (delayMs === null) return;
    const handle = this.timers.after(delayMs, () => {
      this.readyTimers.delete(uid);
      this.setReady(pod.metadata.namespace, pod.metadata.name, uid);
    });
    if (handle) this.readyTimers.set(uid, handle);
  }

  /** The pod's readiness probe starts failing: not Ready from now on, until scheduled again. */
  failReadiness(namespace: string, name: string): PodObject {
    const pod = this.get(namespace, name);
    if (!pod) throw notFound(PODS, name);
    this.scheduleReady(pod, null);
    if (isTerminating(pod) || !isPodReady(pod)) return pod;
    setPodReady(pod, false);
    return this.store.update(PODS, pod) as PodObject;
  }

  /** DELETE semantics of the API server for pods, with deletion accounting. */
  delete(namespace: string, name: string, request: DeleteRequest = {}): PodObject {
    const pod = this.get(namespace, name);
    if (!pod) throw notFound(PODS, name);
    if (!request.byController) this.ledger.recordRequest(pod.metadata.uid);
    checkPreconditions(this.podType, pod, request.preconditions ?? {});
    if (isTerminating(pod)) return pod;
    request.admit?.(pod);
    return request.dryRun ? pod : this.terminate(pod, request.byController === true);
  }

  private terminate(pod: PodObject, byController: boolean): PodObject {
    const { namespace, name, uid } = pod.metadata;
    const graceMs = Math.max(0, this.hooks?.terminationGraceMs(pod) ?? 0);
    this.timers.cancel(this.readyTimers.get(uid));
    this.readyTimers.delete(uid);
    pod.metadata.deletionTimestamp = rfc3339(Date.now() + graceMs);
    pod.metadata.deletionGracePeriodSeconds = Math.ceil(graceMs / 1000);
    setPodReady(pod, false);
    const gone = graceMs === 0;
    const result = (
      gone ? this.store.remove(PODS, namespace, name, pod) : this.store.update(PODS, pod)
    ) as PodObject;
    if (!byController) this.ledger.recordDeletion({ namespace, name, uid });
    if (!gone) this.timers.after(graceMs, () => this.finish(namespace, name, uid));
    return result;
  }

  private finish(namespace: string, name: string, uid: string): void {
    const pod = this.get(namespace, name);
    if (pod?.metadata.uid !== uid) return;
    this.store.remove(PODS, namespace, name);
  }

  private setReady(namespace: string, name: string, uid: string): void {
    const pod = this.get(namespace, name);
    if (pod?.metadata.uid !== uid || isTerminating(pod) || isPodReady(pod)) return;
    setPodReady(pod, true);
    this.store.update(PODS, pod);
  }
}
