// The apps/v1 controller manager: follows the store's changes and reconciles every Deployment,
// ReplicaSet, StatefulSet and DaemonSet a change touches, level-triggered as kube-controller-manager
// does, before the change's watch events go out. Also the garbage collector of their children.
import { isDeepStrictEqual } from 'node:util';
import type { AppsContext, NewOwnedPod } from './apps-context.js';
import type { PodTemplate, WorkloadKind, WorkloadObject } from './apps-util.js';
import { ownedPods, ownerRefTo, scaleTo, STORE_KEYS, writeStatus } from './apps-util.js';
import { reconcileDaemonSet } from './daemonset-controller.js';
import { reconcileDeployment } from './deployment-controller.js';
import { controllerRef, type KubeObject, type PodObject } from './objects.js';
import type { PodRuntime } from './pods.js';
import { reconcileReplicaSet } from './replicaset-controller.js';
import type { ResourceType } from './resources.js';
import { randomSuffix } from './rng.js';
import type { RevisionHistory } from './statefulset-controller.js';
import { reconcileStatefulSet } from './statefulset-controller.js';
import type { ObjectStore, StoreEvent } from './store.js';
import type { Timers } from './timers.js';
import type { ObjectWriter } from './writes.js';

/** How the simulated kubelet treats a workload's pods. */
export interface PodTiming {
  /** Delay before a new pod becomes Ready; null = never. */
  readinessDelayMs: number | null;
  /** How long a deleted pod stays Terminating. */
  terminationGraceMs: number;
}

const KIND_BY_KEY = new Map<string, WorkloadKind>(
  Object.entries(STORE_KEYS).map(([kind, key]) => [key, kind as WorkloadKind]),
);
// Far more rounds than any rollout step needs; a bug that ping-pongs must not hang the server.
const MAX_ROUNDS = 100_000;

export interface AppsDependencies {
  store: ObjectStore;
  pods: PodRuntime;
  writer: ObjectWriter;
  types: (storeKey: string) => ResourceType;
  nodes: readonly string[];
  /** Source of generated pod-name suffixes. */
  random: () => number;
  defaults: PodTiming;
  timers: Timers;
}

export class AppsControllers implements AppsContext {
  readonly store: ObjectStore;
  readonly nodes: readonly string[];
  private readonly podRuntime: PodRuntime;
  private readonly writer: ObjectWriter;
  private readonly types: (storeKey: string) => ResourceType;
  private readonly random: () => number;
  private readonly defaults: PodTiming;
  private readonly timers: Timers;
  private scheduled = false;
  private readonly dirty = new Set<string>();
  private readonly timing = new Map<string, PodTiming>();
  private readonly histories = new Map<string, RevisionHistory>();
  private flushing = false;
  /** While set, the pods controllers create start Ready (a fixture's initial pods). */
  private startReady = false;

  constructor(deps: AppsDependencies) {
    this.store = deps.store;
    this.nodes = deps.nodes;
    this.podRuntime = deps.pods;
    this.writer = deps.writer;
    this.types = deps.types;
    this.random = deps.random;
    this.defaults = deps.defaults;
    this.timers = deps.timers;
    this.store.subscribe((event) => this.changed(event));
  }

  /** Runs `create` with the pods it makes starting Ready, as a fixture's initial pods do. */
  withReadyPods<T>(create: () => T): T {
    this.startReady = true;
    try {
      return create();
    } finally {
      this.startReady = false;
    }
  }

  setTiming(namespace: string, workload: string, timing: Partial<PodTiming>): void {
    const id = `${namespace}/${workload}`;
    this.timing.set(id, { ...(this.timing.get(id) ?? this.defaults), ...timing });
  }

  /** The timing of the workload (Deployment, StatefulSet, DaemonSet) a pod belongs to. */
  timingOf(pod: KubeObject): PodTiming {
    return this.timing.get(this.workloadId(pod)) ?? this.defaults;
  }

  /** `namespace/name` of the top owner of a pod: its ReplicaSet's Deployment when it has one. */
  workloadId(pod: KubeObject): string {
    const { namespace } = pod.metadata;
    const ref = controllerRef(pod);
    if (!ref) return `${namespace}/${pod.metadata.name}`;
    if (ref.kind !== 'ReplicaSet') return `${namespace}/${ref.name}`;
    const rs = this.store.get(STORE_KEYS.ReplicaSet, namespace, ref.name);
    return `${namespace}/${(rs && controllerRef(rs)?.name) ?? ref.name}`;
  }

  pods(owner: KubeObject): PodObject[] {
    return ownedPods(this.store, owner);
  }

  freshName(owner: KubeObject): string {
    for (;;) {
      const name = `${owner.metadata.name}-${randomSuffix(this.random)}`;
      if (!this.podRuntime.get(owner.metadata.namespace, name)) return name;
    }
  }

  createPod(owner: WorkloadObject, template: PodTemplate, spec: NewOwnedPod): void {
    const ready = this.startReady;
    const pod = this.podRuntime.create({
      namespace: owner.metadata.namespace,
      name: spec.name,
      labels: { ...template.metadata?.labels, ...spec.labels },
      ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
      ready,
      owner: ownerRefTo(owner),
      app: template.spec?.containers?.[0]?.name ?? owner.metadata.name,
      ...(spec.nodeName ? { nodeName: spec.nodeName } : {}),
    });
    if (!ready) this.podRuntime.scheduleReady(pod, this.timingOf(pod).readinessDelayMs);
  }

  deletePod(pod: PodObject): void {
    this.podRuntime.delete(pod.metadata.namespace, pod.metadata.name, { byController: true });
  }

  writeStatus(obj: WorkloadObject, status: Record<string, unknown>): void {
    writeStatus(this.store, STORE_KEYS[obj.kind as WorkloadKind], obj, status);
  }

  scale(rs: WorkloadObject, replicas: number): WorkloadObject {
    const scaled = scaleTo(this.store, STORE_KEYS.ReplicaSet, rs, replicas);
    if (scaled !== rs) reconcileReplicaSet(this, scaled);
    return scaled;
  }

  create(kind: 'ReplicaSet', body: object): WorkloadObject {
    const type = this.types(STORE_KEYS[kind]);
    return this.writer.create(
      type,
      (body as KubeObject).metadata.namespace,
      body,
    ) as WorkloadObject;
  }

  private changed(event: StoreEvent): void {
    const { object, key } = event;
    const ref = controllerRef(object);
    const kind = KIND_BY_KEY.get(key);
    if (kind) {
      if (event.type === 'DELETED') this.collectGarbage(kind, object);
      else if (!statusOnly(event))
        this.dirty.add(`${key}/${object.metadata.namespace}/${object.metadata.name}`);
    }
    if ((key === 'pods' || kind) && ref && ref.apiVersion === 'apps/v1') {
      const ownerKey = STORE_KEYS[ref.kind as WorkloadKind] as string | undefined;
      if (ownerKey) this.dirty.add(`${ownerKey}/${object.metadata.namespace}/${ref.name}`);
    }
    if (this.dirty.size > 0 && !this.scheduled) {
      this.scheduled = true;
      this.timers.soon(() => this.flush());
    }
  }

  /**
   * Reconciles every workload a change touched. Runs right after the I/O callback that made the
   * changes (a burst of DELETEs, of readiness timers, costs one reconcile per workload, which keeps
   * a 10,000-pod StatefulSet cheap), or at once through this method when a caller in this process
   * needs the outcome before it goes on (a fixture's addWorkload).
   */
  flush(): void {
    this.scheduled = false;
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (let round = 0; this.dirty.size > 0 && round < MAX_ROUNDS; round++) {
        const [id] = this.dirty;
        this.dirty.delete(id!);
        this.reconcile(id!);
      }
    } finally {
      this.flushing = false;
    }
  }

  private reconcile(id: string): void {
    const [key = '', namespace = '', name = ''] = id.split('/');
    const obj = this.store.get(key, namespace, name) as WorkloadObject | undefined;
    if (!obj) return;
    try {
      this.run(obj);
    } catch (err) {
      process.emitWarning(`simulated ${obj.kind} controller failed on ${id}: ${String(err)}`);
    }
  }

  private run(obj: WorkloadObject): void {
    switch (obj.kind as WorkloadKind) {
      case 'Deployment':
        return reconcileDeployment(this, obj);
      case 'ReplicaSet':
        return reconcileReplicaSet(this, obj);
      case 'StatefulSet':
        return reconcileStatefulSet(this, obj, this.history(obj));
      case 'DaemonSet':
        return reconcileDaemonSet(this, obj);
    }
  }

  private history(obj: KubeObject): RevisionHistory {
    let history = this.histories.get(obj.metadata.uid);
    if (!history) {
      history = new Map();
      this.histories.set(obj.metadata.uid, history);
    }
    return history;
  }

  /** Background deletion of a removed owner's dependents (ReplicaSets, then their pods). */
  private collectGarbage(kind: WorkloadKind, owner: KubeObject): void {
    this.histories.delete(owner.metadata.uid);
    const { namespace, uid } = owner.metadata;
    if (kind === 'Deployment') {
      const sets = this.store.list(
        STORE_KEYS.ReplicaSet,
        namespace,
        (rs) => controllerRef(rs)?.uid === uid,
      );
      for (const rs of sets) this.store.remove(STORE_KEYS.ReplicaSet, namespace, rs.metadata.name);
      return;
    }
    for (const pod of this.pods(owner)) this.deletePod(pod);
  }
}

/** A change of .status alone: the controller's own write, nothing for it to act on. */
function statusOnly(event: StoreEvent): boolean {
  const before = event.previous;
  if (!before) return false;
  const { object } = event;
  return (
    before.metadata.generation === object.metadata.generation &&
    isDeepStrictEqual(before.metadata.labels, object.metadata.labels) &&
    isDeepStrictEqual(before.metadata.ownerReferences, object.metadata.ownerReferences)
  );
}
