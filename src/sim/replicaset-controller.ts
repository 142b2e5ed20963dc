// The ReplicaSet controller: as many live pods as spec.replicas, a replacement with a new name as
// soon as a pod starts terminating, surplus pods deleted (unready first, then the newest).
import type { AppsContext } from './apps-context.js';
import type { WorkloadObject } from './apps-util.js';
import { isAvailable, replicasOf } from './apps-util.js';
import type { PodObject } from './objects.js';
import { isPodReady, isTerminating } from './pod-factory.js';

export function reconcileReplicaSet(ctx: AppsContext, rs: WorkloadObject): void {
  const live = ctx.pods(rs).filter((pod) => !isTerminating(pod));
  const wanted = replicasOf(rs);
  for (let missing = wanted - live.length; missing > 0; missing--) {
    ctx.createPod(rs, rs.spec.template, { name: ctx.freshName(rs) });
  }
  if (live.length > wanted) {
    for (const pod of [...live].sort(deletionOrder).slice(0, live.length - wanted)) {
      ctx.deletePod(pod);
    }
  }
  const acted = live.length !== wanted;
  const now = acted ? ctx.pods(rs).filter((pod) => !isTerminating(pod)) : live;
  const ready = now.filter(isAvailable).length;
  ctx.writeStatus(rs, {
    replicas: now.length,
    fullyLabeledReplicas: now.length,
    readyReplicas: ready,
    availableReplicas: ready,
    observedGeneration: rs.metadata.generation ?? 1,
  });
}

/** The pods a scale-down removes first: not Ready before Ready, then the youngest. */
function deletionOrder(a: PodObject, b: PodObject): number {
  const readyA = isPodReady(a) ? 1 : 0;
  const readyB = isPodReady(b) ? 1 : 0;
  if (readyA !== readyB) return readyA - readyB;
  const at = (p: PodObject): string => p.metadata.creationTimestamp;
  if (at(a) !== at(b)) return at(a) > at(b) ? -1 : 1;
  return a.metadata.name > b.metadata.name ? -1 : 1;
}
