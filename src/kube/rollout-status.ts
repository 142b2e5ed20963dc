// When is a rollout complete? The rules of `kubectl rollout status`, transcribed from kubectl's
// k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go (DeploymentStatusViewer,
// StatefulSetStatusViewer, DaemonSetStatusViewer), so that pod-bouncer waits for an owner exactly
// as long as an operator running kubectl would. Pure functions over the objects' JSON shape, which
// client-node's V1Deployment, V1StatefulSet and V1DaemonSet also have.

export interface RolloutState {
  /** True once kubectl would print "successfully rolled out" / "roll out complete" and exit 0. */
  done: boolean;
  /** kubectl's progress line, e.g. `Waiting for deployment "a" rollout to finish: 1 of 3 …`. */
  message: string;
  /**
   * Set when kubectl would exit with an error instead of waiting: a Deployment past its progress
   * deadline, or a StatefulSet / DaemonSet whose update strategy type is not RollingUpdate (none
   * given included, as kubectl reads it). `done` is
   * then false: such a rollout never completes by waiting.
   */
  error?: string;
}

interface Meta {
  name?: string;
  generation?: number;
}

interface Condition {
  type?: string;
  reason?: string;
}

export interface DeploymentLike {
  metadata?: Meta;
  spec?: { replicas?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    conditions?: Condition[];
  };
}

export interface StatefulSetLike {
  metadata?: Meta;
  spec?: {
    replicas?: number;
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } };
  };
  status?: {
    observedGeneration?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    currentReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
}

export interface DaemonSetLike {
  metadata?: Meta;
  spec?: { updateStrategy?: { type?: string } };
  status?: {
    observedGeneration?: number;
    desiredNumberScheduled?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
  };
}

export type RolloutKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';

const ROLLING = 'RollingUpdate';
// deploymentutil.TimedOutReason
const TIMED_OUT = 'ProgressDeadlineExceeded';

const waiting = (message: string): RolloutState => ({ done: false, message });
const complete = (message: string): RolloutState => ({ done: true, message });
const failed = (error: string): RolloutState => ({ done: false, message: '', error });

/** A missing count is zero, as in the Go structs kubectl decodes into. */
function n(value: number | undefined): number {
  return value ?? 0;
}

/** DeploymentStatusViewer.Status (without a --revision). */
export function deploymentRolloutStatus(d: DeploymentLike): RolloutState {
  const name = d.metadata?.name ?? '';
  const status = d.status ?? {};
  if (n(d.metadata?.generation) > n(status.observedGeneration)) {
    return waiting('Waiting for deployment spec update to be observed...');
  }
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.reason === TIMED_OUT) {
    return failed(`deployment "${name}" exceeded its progress deadline`);
  }
  return deploymentProgress(name, d.spec?.replicas, {
    replicas: n(status.replicas),
    updated: n(status.updatedReplicas),
    available: n(status.availableReplicas),
  });
}

function deploymentProgress(
  name: string,
  wanted: number | undefined,
  s: { replicas: number; updated: number; available: number },
): RolloutState {
  const prefix = `Waiting for deployment "${name}" rollout to finish:`;
  if (wanted !== undefined && s.updated < wanted) {
    return waiting(`${prefix} ${s.updated} out of ${wanted} new replicas have been updated...`);
  }
  if (s.replicas > s.updated) {
    return waiting(`${prefix} ${s.replicas - s.updated} old replicas are pending termination...`);
  }
  if (s.available < s.updated) {
    return waiting(`${prefix} ${s.available} of ${s.updated} updated replicas are available...`);
  }
  return complete(`deployment "${name}" successfully rolled out`);
}

/** StatefulSetStatusViewer.Status. */
export function statefulSetRolloutStatus(sts: StatefulSetLike): RolloutState {
  const strategy = sts.spec?.updateStrategy;
  // No type is not RollingUpdate either: kubectl reads it as "" and refuses.
  if (strategy?.type !== ROLLING) {
    return failed(`rollout status is only available for ${ROLLING} strategy type`);
  }
  const status = sts.status ?? {};
  if (!observedStatefulSet(sts)) {
    return waiting('Waiting for statefulset spec update to be observed...');
  }
  const replicas = sts.spec?.replicas;
  const ready = n(status.readyReplicas);
  if (replicas !== undefined && ready < replicas) {
    return waiting(`Waiting for ${replicas - ready} pods to be ready...`);
  }
  const updated = n(status.updatedReplicas);
  if (strategy?.rollingUpdate !== undefined) {
    return partitionedProgress(replicas, strategy.rollingUpdate.partition, updated);
  }
  return revisionProgress(status, updated);
}

function revisionProgress(
  status: NonNullable<StatefulSetLike['status']>,
  updated: number,
): RolloutState {
  const current = status.currentRevision ?? '';
  const update = status.updateRevision ?? '';
  if (update !== current) {
    return waiting(
      `waiting for statefulset rolling update to complete ${updated} pods at revision ${update}...`,
    );
  }
  return complete(
    `statefulset rolling update complete ${n(status.currentReplicas)} pods at revision ${current}...`,
  );
}

function observedStatefulSet(sts: StatefulSetLike): boolean {
  const observed = n(sts.status?.observedGeneration);
  return observed !== 0 && n(sts.metadata?.generation) <= observed;
}

function partitionedProgress(
  replicas: number | undefined,
  partition: number | undefined,
  updated: number,
): RolloutState {
  if (replicas !== undefined && partition !== undefined && updated < replicas - partition) {
    return waiting(
      `Waiting for partitioned roll out to finish: ${updated} out of ${replicas - partition} new pods have been updated...`,
    );
  }
  return complete(`partitioned roll out complete: ${updated} new pods have been updated...`);
}

/** DaemonSetStatusViewer.Status. */
export function daemonSetRolloutStatus(ds: DaemonSetLike): RolloutState {
  // No type is not RollingUpdate either: kubectl reads it as "" and refuses.
  if (ds.spec?.updateStrategy?.type !== ROLLING) {
    return failed(`rollout status is only available for ${ROLLING} strategy type`);
  }
  const name = ds.metadata?.name ?? '';
  const status = ds.status ?? {};
  if (n(ds.metadata?.generation) > n(status.observedGeneration)) {
    return waiting('Waiting for daemon set spec update to be observed...');
  }
  const desired = n(status.desiredNumberScheduled);
  const updated = n(status.updatedNumberScheduled);
  const available = n(status.numberAvailable);
  const prefix = `Waiting for daemon set "${name}" rollout to finish:`;
  if (updated < desired) {
    return waiting(`${prefix} ${updated} out of ${desired} new pods have been updated...`);
  }
  if (available < desired) {
    return waiting(`${prefix} ${available} of ${desired} updated pods are available...`);
  }
  return complete(`daemon set "${name}" successfully rolled out`);
}

/** The rollout state of an owner of pods, by its kind. */
export function rolloutStatus(kind: RolloutKind, obj: object): RolloutState {
  switch (kind) {
    case 'Deployment':
      return deploymentRolloutStatus(obj);
    case 'StatefulSet':
      return statefulSetRolloutStatus(obj);
    case 'DaemonSet':
      return daemonSetRolloutStatus(obj);
  }
}
