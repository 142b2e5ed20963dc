import {
  parseMaxUnavailable,
  resolveMaxUnavailable,
  type MaxUnavailable,
} from '../directive/max-unavailable.js';
import type { BounceMode, PodSelector } from '../directive/types.js';
import type { RolloutOwner } from '../kube/owners.js';
import type { PodInfo } from '../kube/pods.js';
import type { ChosenPod } from '../queue/selector-job.js';
import { bounceOrder, planBatches } from './batches.js';

// How a selector's chosen pods will be bounced (DESIGN §4 step 3). The worker's bounce step runs
// this plan and the dry run shows it: one function, so that the two cannot drift apart.

/** The installation's defaults for a selector that sets neither field (Config, WorkflowSettings). */
export interface PlanDefaults {
  bounceMode: BounceMode;
  defaultMaxUnavailable: MaxUnavailable;
}

/** rollout: each chosen pod's restartable owner ("Deployment/reviews") by uid, null when none. */
export type PodOwners = Record<string, string | null>;

/** The owner `kubectl rollout restart` restarts for a pod's controller, if there is one. */
export type OwnerLookup = (
  namespace: string,
  controller: { kind: string; name: string },
) => Promise<RolloutOwner | undefined>;

/** One owner restarted in rollout mode, with the chosen pods its rollout replaces. */
export interface OwnerRestart {
  /** `Kind/name`, as persisted in the job's progress. */
  key: string;
  pods: ChosenPod[];
}

export interface BouncePlan {
  bounceMode: BounceMode;
  /** `maxUnavailable` resolved against the chosen pods (at least 1). */
  maxUnavailable: number;
  /**
   * rollout: the owners to restart, in the order they start; at most `maxUnavailable` roll at
   * once, and the next starts when one is complete. Empty in the other modes.
   */
  owners: OwnerRestart[];
  /**
   * The pods bounced one by one by the mode's strategy, in batches of `maxUnavailable`
   * (StatefulSet pods by descending ordinal). rollout: the chosen pods without a restartable
   * owner, evicted once every owner's rollout is complete.
   */
  batches: ChosenPod[][];
}

export const ownerKey = (owner: RolloutOwner): string => `${owner.kind}/${owner.name}`;

/** What the workflow records of a pod it chose. */
export function chosenPod({ name, uid, owner }: PodInfo): ChosenPod {
  return owner === undefined ? { name, uid } : { name, uid, owner };
}

/** The selector's bounceMode, or the installation's default. */
export function bounceModeOf(defaults: PlanDefaults, selector: PodSelector): BounceMode {
  return selector.bounceMode ?? defaults.bounceMode;
}

/**
 * rollout: each chosen pod's restartable owner, one lookup per controller. A ReplicaSet counts as
 * its Deployment (every ReplicaSet of a Deployment in mid-rollout is the same owner); a pod of a
 * ReplicaSet no Deployment owns, of a Job, or of no controller at all has none (null).
 */
export async function resolvePodOwners(
  lookup: OwnerLookup,
  namespace: string,
  chosen: readonly ChosenPod[],
): Promise<PodOwners> {
  const byController = new Map<string, RolloutOwner | undefined>();
  const owners: PodOwners = {};
  for (const pod of chosen) {
    if (pod.owner === undefined) {
      owners[pod.uid] = null;
      continue;
    }
    const controller = `${pod.owner.kind}/${pod.owner.name}`;
    if (!byController.has(controller)) {
      byController.set(controller, await lookup(namespace, pod.owner));
    }
    const owner = byController.get(controller);
    owners[pod.uid] = owner === undefined ? null : ownerKey(owner);
  }
  return owners;
}

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

/**
 * The plan of a selector's bounce: pure and deterministic, so that a re-run after a crash, the
 * worker and the dry run all see the same one. `owners` is required in rollout mode (from
 * `resolvePodOwners`) and ignored in the others; a chosen pod it does not name has no owner.
 */
export function planBounce(
  defaults: PlanDefaults,
  selector: PodSelector,
  chosen: readonly ChosenPod[],
  owners?: PodOwners,
): BouncePlan {
  const bounceMode = bounceModeOf(defaults, selector);
  const own = parseMaxUnavailable(selector.maxUnavailable);
  const maxUnavailable = resolveMaxUnavailable(
    own ?? defaults.defaultMaxUnavailable,
    chosen.length,
  );
  if (bounceMode !== 'rollout') {
    return { bounceMode, maxUnavailable, owners: [], batches: planBatches(chosen, maxUnavailable) };
  }
  if (owners === undefined) throw new Error('a rollout plan needs the chosen pods’ owners');
  const restarts = ownerRestarts(chosen, owners);
  const ownerless = chosen.filter((pod) => (owners[pod.uid] ?? null) === null);
  return {
    bounceMode,
    maxUnavailable,
    owners: restarts,
    batches: planBatches(ownerless, maxUnavailable),
  };
}

/**
 * The plan as pod names per batch, in the order they go: in rollout mode first the owners,
 * `maxUnavailable` of them to a batch in the order they start (each owner's pods in the order its
 * rollout would take them), then the batches of pods without an owner.
 */
export function batchNames(plan: BouncePlan): string[][] {
  const names = (pods: readonly ChosenPod[]): string[] => pods.map((pod) => pod.name);
  const waves: string[][] = [];
  for (let start = 0; start < plan.owners.length; start += plan.maxUnavailable) {
    const wave = plan.owners.slice(start, start + plan.maxUnavailable);
    waves.push(wave.flatMap((owner) => names(bounceOrder(owner.pods))));
  }
  return [...waves, ...plan.batches.map(names)];
}
