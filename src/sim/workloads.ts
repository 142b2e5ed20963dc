// Fixture workloads: addWorkload creates the apps/v1 object a WorkloadSpec stands for, whose
// controller (apps-controllers.ts) then owns, recreates and rolls its pods. Its initial pods start
// Ready; the pods made later become Ready after the workload's readiness delay.
import type { AppsControllers } from './apps-controllers.js';
import { STORE_KEYS } from './apps-util.js';
import { isPodReady, isTerminating } from './pod-factory.js';
import type { PodRuntime } from './pods.js';
import type { ResourceType } from './resources.js';
import type { WorkloadSpec } from './types.js';
import { workloadObject } from './workload-objects.js';
import type { ObjectWriter } from './writes.js';

const TOP_LEVEL = [STORE_KEYS.Deployment, STORE_KEYS.StatefulSet, STORE_KEYS.DaemonSet];

export class WorkloadController {
  constructor(
    private readonly apps: AppsControllers,
    private readonly pods: PodRuntime,
    private readonly writer: ObjectWriter,
    private readonly types: (key: string) => ResourceType,
  ) {}

  add(spec: WorkloadSpec): void {
    const id = `${spec.namespace}/${spec.name}`;
    if (this.exists(spec.namespace, spec.name)) throw new Error(`workload ${id} already exists`);
    if (!Number.isInteger(spec.replicas) || spec.replicas < 0) {
      throw new Error(`workload ${id}: replicas must be a non-negative integer`);
    }
    this.apps.setTiming(spec.namespace, spec.name, {
      readinessDelayMs: spec.readinessDelayMs === undefined ? 0 : spec.readinessDelayMs,
      terminationGraceMs: spec.terminationGraceMs ?? 0,
    });
    const body = workloadObject(spec) as { kind: keyof typeof STORE_KEYS };
    const type = this.types(STORE_KEYS[body.kind]);
    this.apps.withReadyPods(() => {
      this.writer.create(type, spec.namespace, body);
      this.apps.flush();
    });
  }

  setReadinessDelay(namespace: string, name: string, delayMs: number | null): void {
    if (!this.exists(namespace, name))
      throw new Error(`workload ${namespace}/${name} does not exist`);
    this.apps.setTiming(namespace, name, { readinessDelayMs: delayMs });
    const id = `${namespace}/${name}`;
    for (const pod of this.pods.list(namespace, (p) => this.apps.workloadId(p) === id)) {
      if (!isTerminating(pod) && !isPodReady(pod)) this.pods.scheduleReady(pod, delayMs);
    }
  }

  private exists(namespace: string, name: string): boolean {
    return TOP_LEVEL.some((key) => this.apps.store.get(key, namespace, name) !== undefined);
  }
}
