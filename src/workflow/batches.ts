import type { ChosenPod } from '../queue/selector-job.js';

/** A StatefulSet pod's ordinal (the number after its set's name), or undefined. */
function ordinalOf(pod: ChosenPod): number | undefined {
  if (pod.owner?.kind !== 'StatefulSet') return undefined;
  const suffix = pod.name.slice(pod.owner.name.length + 1);
  return pod.name.startsWith(`${pod.owner.name}-`) && /^\d+$/.test(suffix)
    ? Number(suffix)
    : undefined;
}

/**
 * The order pods are bounced in: the chosen order, except that the pods of each StatefulSet take
 * that set's places in descending ordinal order, as its own rolling update would.
 */
export function bounceOrder(chosen: readonly ChosenPod[]): ChosenPod[] {
  const ordinals = new Map<ChosenPod, number>();
  const bySet = new Map<string, { pods: ChosenPod[]; next: number }>();
  for (const pod of chosen) {
    const ordinal = ordinalOf(pod);
    if (ordinal === undefined) continue;
    ordinals.set(pod, ordinal);
    const key = pod.owner?.name ?? '';
    const set = bySet.get(key);
    if (set === undefined) bySet.set(key, { pods: [pod], next: 0 });
    else set.pods.push(pod);
  }
  for (const { pods } of bySet.values()) {
    pods.sort((a, b) => (ordinals.get(b) ?? 0) - (ordinals.get(a) ?? 0));
  }
  return chosen.map((pod) => {
    if (!ordinals.has(pod)) return pod;
    const set = bySet.get(pod.owner?.name ?? '');
    if (set === undefined) return pod;
    set.next += 1;
    return set.pods[set.next - 1] ?? pod;
  });
}

/**
 * The batches a selector's chosen pods are bounced in: `maxUnavailable` pods each (the last may
 * be smaller), in bounce order. Pure and deterministic, so a re-run after a crash, a dry run and
 * the status all see the same plan.
 */
export function planBatches(chosen: readonly ChosenPod[], maxUnavailable: number): ChosenPod[][] {
  const size = Math.max(1, Math.floor(maxUnavailable));
  const ordered = bounceOrder(chosen);
  const batches: ChosenPod[][] = [];
  for (let start = 0; start < ordered.length; start += size) {
    batches.push(ordered.slice(start, start + size));
  }
  return batches;
}

/**
 * Whether a chosen pod, once bounced, is down until a Ready replacement: it has a controller
 * owner (bare pods are never replaced) and was Ready when chosen (a crash-looping pod was down
 * before the run, and its replacement may never be Ready).
 */
export const owesReplacement = (pod: ChosenPod): boolean =>
  pod.owner !== undefined && pod.unready !== true;

/**
 * Ready replacements to wait for before sending a batch of `nextBatch` pods: every bounced pod
 * that had a controller owner should be back, less what the next batch may still take down
 * without going over `maxUnavailable`. Bare pods are never replaced, so they do not count; nor do
 * pods that were not Ready when chosen: they were down before the run (the owners' wait counts
 * them the same way), and a crash-looping pod's replacement may never be Ready.
 */
export function replacementsWanted(
  chosen: readonly ChosenPod[],
  bounced: ReadonlySet<string>,
  maxUnavailable: number,
  nextBatch: number,
): number {
  const owed = chosen.filter((pod) => owesReplacement(pod) && bounced.has(pod.uid)).length;
  return Math.max(0, owed - (maxUnavailable - nextBatch));
}
