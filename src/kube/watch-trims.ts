import type { KubernetesObject } from '@kubernetes/client-node';
import type { PodJson } from './pods.js';

/** A ReplicaSet as its watch keeps it: identity and the scale it wants, nothing more. */
export interface ReplicaSetScale {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: { replicas?: number };
}

/**
 * A cached pod keeps only what the workflow reads (identity, labels, timestamps, the controller
 * reference, the Ready condition): a full pod is several KB, and a worker may watch namespaces of
 * thousands of pods. A new small object, so that the parsed pod dies young (cheap to collect)
 * instead of being kept, trimmed in place, until the pod's next change. ListWatch itself needs
 * only name, namespace and resourceVersion.
 */
export function trimPod(object: KubernetesObject): KubernetesObject {
  const pod = object as PodJson & { metadata?: { resourceVersion?: string } };
  const metadata = pod.metadata ?? {};
  // Only the controller reference is kept: batches and rollouts ask who owns a pod.
  const controller = metadata.ownerReferences?.find((reference) => reference.controller === true);
  const ready = pod.status?.conditions?.find((condition) => condition.type === 'Ready');
  const trimmed: PodJson & { metadata: { resourceVersion?: string } } = {
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      uid: metadata.uid,
      resourceVersion: metadata.resourceVersion,
      labels: metadata.labels,
      creationTimestamp: metadata.creationTimestamp,
      deletionTimestamp: metadata.deletionTimestamp,
    },
    // Of the Ready condition and the controller reference, only what the workflow reads: their
    // timestamps, uids and API versions are most of a cached pod's bytes.
    status: { conditions: ready === undefined ? [] : [{ type: 'Ready', status: ready.status }] },
  };
  if (controller !== undefined) {
    const { kind, name } = controller;
    trimmed.metadata.ownerReferences = [{ kind, name, controller: true }];
  }
  return trimmed as KubernetesObject;
}

/**
 * A cached ReplicaSet keeps only its scale (`spec.replicas`, what batches count a chosen pod's
 * owner against): its pod template, the bulk of it, is never read from the cache.
 */
export function trimReplicaSet(object: KubernetesObject): KubernetesObject {
  const set = object as ReplicaSetScale;
  const { name, namespace, resourceVersion } = set.metadata ?? {};
  const trimmed: ReplicaSetScale = {
    metadata: { name, namespace, resourceVersion },
    spec: { replicas: set.spec?.replicas },
  };
  return trimmed;
}
