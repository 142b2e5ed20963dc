// Owner controllers: keep a workload's replica count the way a ReplicaSet or StatefulSet would.
// ReplicaSet: a replacement with a new name as soon as a pod starts terminating.
// StatefulSet: the same name with a new uid, only once the old pod is gone.
import { randomUUID } from 'node:crypto';
import type { OwnerReference, PodObject } from './objects.js';
import { isPodReady, isTerminating } from './pod-factory.js';
import type { PodLifecycleHooks, PodRuntime } from './pods.js';
import { randomSuffix, templateHash } from './rng.js';
import type { WorkloadSpec } from './types.js';

interface Workload {
  spec: WorkloadSpec;
  readinessDelayMs: number | null;
  terminationGraceMs: number;
  owner: OwnerReference;
  hash: string;
}

export class WorkloadController implements PodLifecycleHooks {
  private readonly workloads = new Map<string, Workload>();
  /** The same workloads by their owner uid, which every pod event is looked up by. */
  private readonly byOwnerUid = new Map<string, Workload>();

  constructor(
    private readonly pods: PodRuntime,
    private readonly random: () => number,
  ) {
    pods.setHooks(this);
  }

  add(spec: WorkloadSpec): void {
    const id = `${spec.namespace}/${spec.name}`;
    if (this.workloads.has(id)) throw new Error(`workload ${id} already exists`);
    if (!Number.isInteger(spec.replicas) || spec.replicas < 0) {
      throw new Error(`workload ${id}: replicas must be a non-negative integer`);
    }
    const hash = templateHash(this.random);
    const ownerName = spec.kind === 'ReplicaSet' ? `${spec.name}-${hash}` : spec.name;
    const workload: Workload = {
      spec: { ...spec, labels: { ...spec.labels } },
      readinessDelayMs: spec.readinessDelayMs === undefined ? 0 : spec.readinessDelayMs,
      terminationGraceMs: spec.terminationGraceMs ?? 0,
      owner: {
        apiVersion: 'apps/v1',
        kind: spec.kind,
        name: ownerName,
        uid: randomUUID(),
        controller: true,
        blockOwnerDeletion: true,
      },
      hash,
    };
    this.workloads.set(id, workload);
    this.byOwnerUid.set(workload.owner.uid, workload);
    for (let ordinal = 0; ordinal < spec.replicas; ordinal++)
      this.createPod(workload, ordinal, true);
  }

  setReadinessDelay(namespace: string, name: string, delayMs: number | null): void {
    const workload = this.workloads.get(`${namespace}/${name}`);
    if (!workload) throw new Error(`workload ${namespace}/${name} does not exist`);
    workload.readinessDelayMs = delayMs;
    for (const pod of this.ownedPods(workload)) {
      if (!isTerminating(pod) && !isPodReady(pod)) this.pods.scheduleReady(pod, delayMs);
    }
  }

  terminationGraceMs(pod: PodObject): number {
    return this.ownerOf(pod)?.terminationGraceMs ?? 0;
  }

  terminating(pod: PodObject): void {
    const workload = this.ownerOf(pod);
    if (workload?.spec.kind !== 'ReplicaSet') return;
    const live = this.ownedPods(workload).filter((p) => !isTerminating(p)).length;
    if (live < workload.spec.replicas) this.createPod(workload, undefined, false);
  }

  removed(pod: PodObject): void {
    const workload = this.ownerOf(pod);
    if (workload?.spec.kind !== 'StatefulSet') return;
    const ordinal = Number(pod.metadata.name.slice(workload.spec.name.length + 1));
    const taken = this.pods.get(pod.metadata.namespace, pod.metadata.name);
    if (!taken && ordinal < workload.spec.replicas) this.createPod(workload, ordinal, false);
  }

  private createPod(workload: Workload, ordinal: number | undefined, ready: boolean): void {
    const { spec } = workload;
    const isReplicaSet = spec.kind === 'ReplicaSet';
    const name = isReplicaSet ? this.freshReplicaSetName(workload) : `${spec.name}-${ordinal ?? 0}`;
    const labels = isReplicaSet
      ? { ...spec.labels, 'pod-template-hash': workload.hash }
      : {
          ...spec.labels,
          'controller-revision-hash': `${spec.name}-${workload.hash}`,
          'statefulset.kubernetes.io/pod-name': name,
          'apps.kubernetes.io/pod-index': String(ordinal ?? 0),
        };
    const pod = this.pods.create({
      namespace: spec.namespace,
      name,
      labels,
      ready,
      owner: workload.owner,
      app: spec.name,
    });
    if (!ready) this.pods.scheduleReady(pod, workload.readinessDelayMs);
  }

  private freshReplicaSetName(workload: Workload): string {
    for (;;) {
      const name = `${workload.owner.name}-${randomSuffix(this.random)}`;
      if (!this.pods.get(workload.spec.namespace, name)) return name;
    }
  }

  private ownerOf(pod: PodObject): Workload | undefined {
    const uid = pod.metadata.ownerReferences?.[0]?.uid;
    return uid === undefined ? undefined : this.byOwnerUid.get(uid);
  }

  private ownedPods(workload: Workload): PodObject[] {
    return this.pods.list(
      workload.spec.namespace,
      (pod) => pod.metadata.ownerReferences?.[0]?.uid === workload.owner.uid,
    );
  }
}
