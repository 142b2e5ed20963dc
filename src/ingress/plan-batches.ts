import type { Config } from '../config.js';
import { parseMaxUnavailable, resolveMaxUnavailable } from '../directive/max-unavailable.js';
import type { BounceMode, PodSelector } from '../directive/types.js';
import type { PodInfo } from '../kube/pods.js';
import type { ChosenPod } from '../queue/selector-job.js';
import { planBatches } from '../workflow/batches.js';

/** How a selector would go: its mode, how many may be down at once, and in which batches. */
export interface BatchPlan {
  bounceMode: BounceMode;
  /** `maxUnavailable` resolved against the pods chosen now (at least 1). */
  maxUnavailable: number;
  /**
   * Pod names per batch, in the order they would go (StatefulSet pods by descending ordinal). In
   * `rollout` mode a batch is the pods of at most `maxUnavailable` owners restarted together
   * (grouped by their controller); pods without one are evicted, in batches of their own.
   */
  batches: string[][];
}

function chosenOf(pods: readonly PodInfo[]): ChosenPod[] {
  return pods.map((pod) => ({
    name: pod.name,
    uid: pod.uid,
    ...(pod.owner === undefined ? {} : { owner: pod.owner }),
  }));
}

/** Owners restarted together: pods grouped by controller, `limit` controllers per batch. */
function rolloutBatches(chosen: readonly ChosenPod[], limit: number): string[][] {
  const byOwner = new Map<string, string[]>();
  const bare: ChosenPod[] = [];
  for (const pod of chosen) {
    if (pod.owner === undefined) {
      bare.push(pod);
      continue;
    }
    const key = `${pod.owner.kind}/${pod.owner.name}`;
    byOwner.set(key, [...(byOwner.get(key) ?? []), pod.name]);
  }
  const owners = [...byOwner.values()];
  const batches: string[][] = [];
  for (let start = 0; start < owners.length; start += limit) {
    batches.push(owners.slice(start, start + limit).flat());
  }
  return [...batches, ...planBatches(bare, limit).map((batch) => batch.map((pod) => pod.name))];
}

/** The batches the worker would make of the pods a selector would choose now (DESIGN §4 step 3). */
export function batchPlan(
  config: Pick<Config, 'bounceMode' | 'defaultMaxUnavailable'>,
  selector: PodSelector,
  chosenPods: readonly PodInfo[],
): BatchPlan {
  const bounceMode = selector.bounceMode ?? config.bounceMode;
  const own = parseMaxUnavailable(selector.maxUnavailable);
  const maxUnavailable = resolveMaxUnavailable(
    own ?? config.defaultMaxUnavailable,
    chosenPods.length,
  );
  const chosen = chosenOf(chosenPods);
  const batches =
    bounceMode === 'rollout'
      ? rolloutBatches(chosen, maxUnavailable)
      : planBatches(chosen, maxUnavailable).map((batch) => batch.map((pod) => pod.name));
  return { bounceMode, maxUnavailable, batches };
}
