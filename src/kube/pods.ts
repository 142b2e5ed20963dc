import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';

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
}

export function toPodInfo(pod: V1Pod): PodInfo {
  const metadata = pod.metadata ?? {};
  const readyCondition = pod.status?.conditions?.find((condition) => condition.type === 'Ready');
  return {
    name: metadata.name ?? '',
    uid: metadata.uid ?? '',
    createdAt: new Date(metadata.creationTimestamp ?? 0),
    ready: readyCondition?.status === 'True',
    terminating: metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null,
    controlled: (metadata.ownerReferences ?? []).some((owner) => owner.controller === true),
    ...ownerOf(metadata.ownerReferences),
  };
}

function ownerOf(
  references: V1OwnerReference[] | undefined,
): { owner: { kind: string; name: string } } | object {
  const controller = references?.find((reference) => reference.controller === true);
  return controller === undefined
    ? {}
    : { owner: { kind: controller.kind, name: controller.name } };
}
