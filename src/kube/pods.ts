/**
 * A pod as the API server sends it, in the parts pod-bouncer reads: plain JSON (timestamps as
 * strings), or client-node's model of it (timestamps as Dates).
 */
export interface PodJson {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string | Date;
    deletionTimestamp?: string | Date | null;
    ownerReferences?: { kind: string; name: string; controller?: boolean }[];
  };
  status?: { conditions?: { type: string; status: string }[] };
}

/** The pod template annotation `kubectl rollout restart` sets (bounceMode rollout sets it too). */
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/** What the workflow needs to know about a pod, and nothing more. */
export interface PodInfo {
  name: string;
  uid: string;
  /** creationTimestamp: one-second precision, as the API server stores it. */
  createdAt: Date;
  ready: boolean;
  terminating: boolean;
  /** A controller owns it (ReplicaSet, StatefulSet, …): it is replaced when bounced. */
  controlled?: boolean;
  /** The controller owner (ownerReferences entry with controller: true), if any. */
  owner?: { kind: string; name: string };
  /** Its template's restartedAt: a pod made by a rollout restart carries the restart's moment. */
  restartedAt?: string;
}

/** The parts of a pod that only some pods have: its controller owner, its restartedAt. */
function optionalParts(metadata: NonNullable<PodJson['metadata']>): Partial<PodInfo> {
  const controller = metadata.ownerReferences?.find((reference) => reference.controller === true);
  const restartedAt = metadata.annotations?.[RESTARTED_AT];
  return {
    controlled: controller !== undefined,
    ...(controller === undefined
      ? {}
      : { owner: { kind: controller.kind, name: controller.name } }),
    ...(restartedAt === undefined ? {} : { restartedAt }),
  };
}

export function toPodInfo(pod: PodJson): PodInfo {
  const metadata = pod.metadata ?? {};
  const readyCondition = pod.status?.conditions?.find((condition) => condition.type === 'Ready');
  return {
    name: metadata.name ?? '',
    uid: metadata.uid ?? '',
    createdAt: new Date(metadata.creationTimestamp ?? 0),
    ready: readyCondition?.status === 'True',
    terminating: metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null,
    ...optionalParts(metadata),
  };
}
