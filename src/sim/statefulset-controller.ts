// The StatefulSet controller (pkg/controller/statefulset): pods <name>-<ordinal>, a deleted pod
// comes back under the same name once it is gone; OrderedReady creates in ordinal order waiting
// for each to be Ready; RollingUpdate replaces pods from the highest ordinal down to the partition,
// one at a time, each only once its successor is Ready again; OnDelete replaces none.
import { copyJson } from './copy.js';
import type { AppsContext } from './apps-context.js';
import type { PodTemplate, WorkloadObject } from './apps-util.js';
import { isAvailable, replicasOf, templateHash } from './apps-util.js';
import type { PodObject } from './objects.js';
import { isTerminating } from './pod-factory.js';

export const REVISION_LABEL = 'controller-revision-hash';

interface Sts {
  ctx: AppsContext;
  set: WorkloadObject;
  replicas: number;
  ordered: boolean;
  currentRevision: string;
  updateRevision: string;
  /** Pods by ordinal. */
  pods: Map<number, PodObject>;
  /** Whether this reconcile created or deleted a pod (then `pods` is out of date). */
  acted: boolean;
}

/** The pod templates of each StatefulSet's revisions (what ControllerRevisions hold). */
export type RevisionHistory = Map<string, PodTemplate>;

export function reconcileStatefulSet(
  ctx: AppsContext,
  set: WorkloadObject,
  history: RevisionHistory,
): void {
  const updateRevision = `${set.metadata.name}-${templateHash(set.spec.template)}`;
  history.set(updateRevision, copyJson(set.spec.template));
  const recorded = set.status?.currentRevision;
  const sts: Sts = {
    ctx,
    set,
    replicas: replicasOf(set),
    ordered: set.spec.podManagementPolicy !== 'Parallel',
    currentRevision:
      typeof recorded === 'string' && history.has(recorded) ? recorded : updateRevision,
    updateRevision,
    pods: byOrdinal(set, ctx.pods(set)),
    acted: false,
  };
  if (createAndScale(sts, history) && set.spec.updateStrategy?.type !== 'OnDelete') {
    rollingUpdate(sts);
  }
  const pods = sts.acted ? byOrdinal(set, ctx.pods(set)) : sts.pods;
  ctx.writeStatus(set, statefulSetStatus(sts, pods));
}

/** Creates missing pods and removes surplus ones; false while pods are still being waited for. */
function createAndScale(sts: Sts, history: RevisionHistory): boolean {
  for (let ordinal = 0; ordinal < sts.replicas; ordinal++) {
    const pod = sts.pods.get(ordinal);
    if (!pod) {
      createPod(sts, ordinal, history);
      if (sts.ordered) return false;
    } else if (sts.ordered && !isAvailable(pod)) return false;
  }
  const surplus = [...sts.pods.keys()].filter((o) => o >= sts.replicas).sort((a, b) => b - a);
  for (const ordinal of surplus) {
    const pod = sts.pods.get(ordinal)!;
    if (!isTerminating(pod)) deletePod(sts, pod);
    if (sts.ordered) return false;
  }
  return surplus.length === 0;
}

function rollingUpdate(sts: Sts): void {
  const partition = sts.set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  for (let target = sts.replicas - 1; target >= Math.max(0, partition); target--) {
    const pod = sts.pods.get(target);
    if (!pod) return;
    if (pod.metadata.labels[REVISION_LABEL] !== sts.updateRevision && !isTerminating(pod)) {
      deletePod(sts, pod);
      return;
    }
    if (!isAvailable(pod)) return;
  }
}

function deletePod(sts: Sts, pod: PodObject): void {
  sts.acted = true;
  sts.ctx.deletePod(pod);
}

function createPod(sts: Sts, ordinal: number, history: RevisionHistory): void {
  const { set } = sts;
  sts.acted = true;
  const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  const rolling = set.spec.updateStrategy?.type !== 'OnDelete';
  const revision = rolling && ordinal < partition ? sts.currentRevision : sts.updateRevision;
  const name = `${set.metadata.name}-${ordinal}`;
  sts.ctx.createPod(set, history.get(revision) ?? set.spec.template, {
    name,
    labels: {
      [REVISION_LABEL]: revision,
      'statefulset.kubernetes.io/pod-name': name,
      'apps.kubernetes.io/pod-index': String(ordinal),
    },
  });
}

function statefulSetStatus(sts: Sts, pods: Map<number, PodObject>): Record<string, unknown> {
  let ready = 0;
  let current = 0;
  let updated = 0;
  for (const pod of pods.values()) {
    if (isAvailable(pod)) ready += 1;
    if (isTerminating(pod)) continue;
    const revision = pod.metadata.labels[REVISION_LABEL];
    if (revision === sts.currentRevision) current += 1;
    if (revision === sts.updateRevision) updated += 1;
  }
  let currentRevision = sts.currentRevision;
  const rolling = sts.set.spec.updateStrategy?.type !== 'OnDelete';
  if (rolling && updated === pods.size && ready === pods.size) {
    currentRevision = sts.updateRevision;
    current = updated;
  }
  return {
    observedGeneration: sts.set.metadata.generation ?? 1,
    replicas: pods.size,
    readyReplicas: ready,
    availableReplicas: ready,
    currentReplicas: current,
    updatedReplicas: updated,
    currentRevision,
    updateRevision: sts.updateRevision,
    collisionCount: 0,
  };
}

function byOrdinal(set: WorkloadObject, pods: PodObject[]): Map<number, PodObject> {
  const prefix = `${set.metadata.name}-`;
  const map = new Map<number, PodObject>();
  for (const pod of pods) {
    const ordinal = Number(pod.metadata.name.slice(prefix.length));
    if (pod.metadata.name.startsWith(prefix) && Number.isInteger(ordinal)) map.set(ordinal, pod);
  }
  return map;
}
