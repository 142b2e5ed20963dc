// A Deployment's status as its controller computes it (calculateStatus, syncRolloutStatus): the
// counts summed over its ReplicaSets and the Available and Progressing conditions.
import type { WorkloadObject } from './apps-util.js';
import { replicasOf, statusNumber } from './apps-util.js';
import { isPlainObject, rfc3339 } from './objects.js';

interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export function deploymentStatus(
  d: WorkloadObject,
  sets: WorkloadObject[],
  newRS: WorkloadObject | undefined,
  maxUnavailable: number,
): Record<string, unknown> {
  const sum = (field: string): number => sets.reduce((n, rs) => n + statusNumber(rs, field), 0);
  const wanted = replicasOf(d);
  const replicas = sum('replicas');
  const updated = newRS ? statusNumber(newRS, 'replicas') : 0;
  const available = sum('availableReplicas');
  const total = sets.reduce((n, rs) => n + replicasOf(rs), 0);
  const generation = d.metadata.generation ?? 1;
  const complete = updated === wanted && replicas === wanted && available === wanted;
  const previous = Array.isArray(d.status?.conditions) ? (d.status.conditions as Condition[]) : [];
  const name = newRS?.metadata.name ?? d.metadata.name;
  const conditions = [
    available >= wanted - maxUnavailable
      ? condition(
          'Available',
          'True',
          'MinimumReplicasAvailable',
          'Deployment has minimum availability.',
        )
      : condition(
          'Available',
          'False',
          'MinimumReplicasUnavailable',
          'Deployment does not have minimum availability.',
        ),
    progressing(d, complete, name),
  ].map((c) => carryTimes(c, previous));
  return {
    observedGeneration: generation,
    replicas,
    updatedReplicas: updated,
    readyReplicas: sum('readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
    conditions,
  };
}

function progressing(d: WorkloadObject, complete: boolean, rsName: string): Condition {
  if (d.spec.paused) {
    return condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused');
  }
  if (complete) {
    return condition(
      'Progressing',
      'True',
      'NewReplicaSetAvailable',
      `ReplicaSet "${rsName}" has successfully progressed.`,
    );
  }
  return condition(
    'Progressing',
    'True',
    'ReplicaSetUpdated',
    `ReplicaSet "${rsName}" is progressing.`,
  );
}

function condition(
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
): Condition {
  return { type, status, reason, message };
}

/** Keeps a condition's times while it says the same; a change of status moves lastTransitionTime. */
function carryTimes(next: Condition, previous: Condition[]): Condition {
  const before = previous.find((c) => isPlainObject(c) && c.type === next.type);
  const now = rfc3339();
  const same = before?.status === next.status;
  const unchanged = same && before.reason === next.reason && before.message === next.message;
  return {
    ...next,
    lastUpdateTime: unchanged ? (before.lastUpdateTime ?? now) : now,
    lastTransitionTime: same ? (before.lastTransitionTime ?? now) : now,
  };
}
