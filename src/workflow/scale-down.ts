import type { PodInfo } from '../kube/pods.js';
import type { ChosenPod } from '../queue/selector-job.js';
import type { StepContext } from './context.js';
import { healthyByOwner, keyOf, ownersOf, shortOf, wanted } from './owners-down.js';

/**
 * A scale-down mid-run (docs/concepts.md): the bounced pods an owner no longer wants at its scale are
 * owed no replacement, so the batch gate does not wait for them until its readiness timeout.
 */

type Owner = NonNullable<ChosenPod['owner']>;

/** The owners whose scale is read (`wanted`): of another kind, nothing tells what it wants. */
const SCALED = new Set(['ReplicaSet', 'StatefulSet', 'DaemonSet']);

/** An owner misses none of its pods: it is gone, or has as many Ready pods as it wants (or more). */
export function missesNothing(want: number | undefined, healthy: number): boolean {
  return want === undefined || shortOf(want, healthy) === 0;
}

/**
 * The bounced chosen pods with an owner (`count`), their owners, and per owner its Ready, not
 * terminating pods. Undefined when no scale can release them: none has an owner, an owner's scale
 * is not read (of another kind), or an owner is still at work: a bounced pod not gone yet (its
 * replacement may follow; a lagging watch may show it Ready), or a live pod not Ready (missed, or
 * about to go). No read is spent on an owner at work: that is every wait's usual state.
 */
export function scaleCandidates(
  chosen: readonly ChosenPod[],
  bounced: ReadonlySet<string>,
  pods: readonly PodInfo[],
): { count: number; owners: Map<string, Owner>; healthy: Map<string, number> } | undefined {
  const mine = chosen.filter((pod) => pod.owner !== undefined && bounced.has(pod.uid));
  const owners = ownersOf(mine);
  if (mine.length === 0 || [...owners.values()].some((owner) => !SCALED.has(owner.kind)))
    return undefined;
  const theirs = pods.filter((pod) => pod.owner !== undefined && owners.has(keyOf(pod.owner)));
  if (theirs.some((pod) => bounced.has(pod.uid) || (!pod.ready && !pod.terminating)))
    return undefined;
  return { count: mine.length, owners, healthy: healthyByOwner(theirs) };
}

/**
 * A scale-down mid-run: an owner never replaces the bounced pods it no longer wants, so the batch
 * gate's replacement count stays short for good. When every owner of the bounced chosen pods
 * misses nothing now, those of its pods that no counted replacement (`replaced`) of the same
 * owners stands for are owed none: answers how many they are; else 0. Only the selector's own
 * bounced pods are released, and none twice: the count may be short for a sibling's pods too,
 * whose owners' scale says nothing of them. Never for a bare pod, nor while an owner misses pods
 * (it may still be making replacements). One owner read per owner (a ReplicaSet's from its watch
 * once synced).
 */
export async function unwantedBounced(
  context: StepContext,
  seen: { pods: readonly PodInfo[]; bounced: ReadonlySet<string>; replaced: readonly PodInfo[] },
): Promise<number> {
  const candidates = scaleCandidates(context.progress.chosen ?? [], seen.bounced, seen.pods);
  if (candidates === undefined) return 0;
  const { count, owners, healthy } = candidates;
  for (const [key, owner] of owners) {
    if (!missesNothing(await wanted(context, owner), healthy.get(key) ?? 0)) return 0;
  }
  const covered = seen.replaced.filter((pod) => pod.owner && owners.has(keyOf(pod.owner))).length;
  const unreplaced = Math.max(0, count - covered);
  // Told once per count, not at every re-check while a soak or a gate holds the batch.
  if (unreplaced > 0 && unreplaced !== context.progress.noLongerWanted) {
    const keys = [...owners.keys()].join(', ');
    context.note(
      `${unreplaced} chosen pod(s) no longer wanted by their owner (${keys}: at its scale, every pod Ready); no replacement waited for`,
    );
    context.stage({ noLongerWanted: unreplaced });
  }
  return unreplaced;
}
