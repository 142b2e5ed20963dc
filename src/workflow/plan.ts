import {
  parseMaxUnavailable,
  resolveMaxUnavailable,
  type MaxUnavailable,
} from '../directive/max-unavailable.js';
import type { BounceMode, PodSelector } from '../directive/types.js';
import type { RolloutOwner } from '../kube/owners.js';
import type { PodInfo } from '../kube/pods.js';
import type { ChosenPod } from '../queue/selector-job.js';
import { bounceOrder } from './batches.js';

// The parts of a selector's bounce plan (DESIGN §4 step 3) that every mode shares. Each mode
// makes its plan from them (`modes/`); the worker's bounce step runs that plan and the dry run
// shows it, through one function (`planSelectorBounce`), so that the two cannot drift apart.

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
export function chosenPod({ name, uid, owner, ready }: PodInfo): ChosenPod {
  return {
    name,
    uid,
    ...(owner === undefined ? {} : { owner }),
    ...(ready ? {} : { unready: true }),
  };
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

/**
 * `maxUnavailable` of a selector resolved against its chosen pods (at least 1): its own, or the
 * installation's default.
 */
export function maxUnavailableOf(
  defaults: PlanDefaults,
  selector: PodSelector,
  chosen: number,
): number {
  const own = parseMaxUnavailable(selector.maxUnavailable);
  return resolveMaxUnavailable(own ?? defaults.defaultMaxUnavailable, chosen);
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
