import type { ChosenPod } from '../../queue/selector-job.js';
import { planBatches } from '../batches.js';
import { slotWait } from '../steps/order.js';
import type { OwnerRestart, PodOwners } from '../plan.js';
import { evictMode } from './evict.js';
import type { BounceStrategy, RbacRule } from './mode.js';
import { rollOwners } from './rollout-owners.js';

/** The owners a rollout restarts, each with the chosen pods its rollout replaces. */
function ownerRestarts(chosen: readonly ChosenPod[], owners: PodOwners): OwnerRestart[] {
  const byKey = new Map<string, ChosenPod[]>();
  for (const pod of chosen) {
    const key = owners[pod.uid];
    if (key === null || key === undefined) continue;
    byKey.set(key, [...(byKey.get(key) ?? []), pod]);
  }
  // Sorted, so that a re-run of the job resumes the same order whatever the order of its record.
  return [...byKey.keys()].sort().map((key) => ({ key, pods: byKey.get(key) ?? [] }));
}

/** A pod's ReplicaSet names its Deployment: read by the worker and by the dry run alike. */
const READ_REPLICASETS: RbacRule = { apiGroup: 'apps', resources: ['replicasets'], verbs: ['get'] };

/**
 * `rollout` (DESIGN §4 step 3): the chosen pods' owners are restarted as `kubectl rollout restart`
 * does (modes/rollout-owners.ts), at most `maxUnavailable` rolling at once, and the owners' own
 * strategies replace the pods. The chosen pods without a restartable owner are evicted, in
 * batches of their own, once every owner's rollout is complete.
 */
export const rolloutMode: BounceStrategy = {
  mode: 'rollout',
  needsOwners: true,
  plan({ chosen, maxUnavailable, owners }) {
    if (owners === undefined) throw new Error('a rollout plan needs the chosen pods’ owners');
    const ownerless = chosen.filter((pod) => (owners[pod.uid] ?? null) === null);
    return {
      owners: ownerRestarts(chosen, owners),
      batches: planBatches(ownerless, maxUnavailable),
    };
  },
  async beforeBatches(context, plan) {
    if (plan.owners.length === 0) return 'done';
    // The first restart takes one of the run's selector slots (maxConcurrentSelectors).
    const slot = await slotWait(context);
    return slot === undefined ? rollOwners(context, plan) : { wait: slot };
  },
  bouncePod: (context, pod) => evictMode.bouncePod(context, pod),
  rbac: {
    worker: [
      {
        apiGroup: 'apps',
        resources: ['deployments', 'statefulsets', 'daemonsets'],
        verbs: ['get', 'patch'],
      },
      READ_REPLICASETS,
      ...evictMode.rbac.worker,
    ],
    api: [READ_REPLICASETS],
  },
};
