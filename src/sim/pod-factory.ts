// Realistic pod objects: what a kubelet-reported, Running pod looks like through the API.
import type { OwnerReference, PodCondition, PodObject } from './objects.js';
import { rfc3339 } from './objects.js';

export interface PodBlueprint {
  namespace: string;
  name: string;
  uid: string;
  labels: Record<string, string>;
  ready: boolean;
  createdAt?: Date;
  owner?: OwnerReference;
  /** Container name and image stem; defaults to the pod name. */
  app?: string;
  podIP: string;
  nodeName?: string;
  annotations?: Record<string, string>;
}

export function buildPod(blueprint: PodBlueprint): PodObject {
  const created = rfc3339(blueprint.createdAt ?? Date.now());
  const app = blueprint.app ?? blueprint.name;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: blueprint.name,
      namespace: blueprint.namespace,
      uid: blueprint.uid,
      resourceVersion: '',
      creationTimestamp: created,
      labels: { ...blueprint.labels },
      ...(blueprint.annotations ? { annotations: { ...blueprint.annotations } } : {}),
      ...(blueprint.owner ? { ownerReferences: [blueprint.owner] } : {}),
    },
    spec: {
      containers: [{ name: app, image: `registry.sim.local/${app}:1.0.0` }],
      nodeName: blueprint.nodeName ?? 'sim-node-1',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
    },
    status: {
      phase: 'Running',
      podIP: blueprint.podIP,
      startTime: created,
      conditions: conditions(blueprint.ready, created),
      containerStatuses: [containerStatus(app, blueprint.ready, created)],
    },
  };
}

function conditions(ready: boolean, at: string): PodCondition[] {
  const flag = ready ? 'True' : 'False';
  return [
    { type: 'PodScheduled', status: 'True', lastTransitionTime: at },
    { type: 'Initialized', status: 'True', lastTransitionTime: at },
    { type: 'ContainersReady', status: flag, lastTransitionTime: at },
    { type: 'Ready', status: flag, lastTransitionTime: at },
  ];
}

function containerStatus(app: string, ready: boolean, startedAt: string): Record<string, unknown> {
  return {
    name: app,
    image: `registry.sim.local/${app}:1.0.0`,
    imageID: '',
    ready,
    started: true,
    restartCount: 0,
    state: { running: { startedAt } },
  };
}

/** Flips the Ready and ContainersReady conditions (and the container's ready flag). */
export function setPodReady(pod: PodObject, ready: boolean, at = Date.now()): void {
  const flag = ready ? 'True' : 'False';
  for (const condition of pod.status.conditions) {
    if (
      (condition.type === 'Ready' || condition.type === 'ContainersReady') &&
      condition.status !== flag
    ) {
      condition.status = flag;
      condition.lastTransitionTime = rfc3339(at);
    }
  }
  const statuses = pod.status.containerStatuses;
  if (Array.isArray(statuses))
    for (const status of statuses as Array<{ ready: boolean }>) status.ready = ready;
}

export function isPodReady(pod: PodObject): boolean {
  return pod.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

export function isTerminating(pod: PodObject): boolean {
  return pod.metadata.deletionTimestamp !== undefined;
}
