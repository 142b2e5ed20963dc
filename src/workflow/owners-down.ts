import type { PodInfo } from '../kube/pods.js';
import type { ChosenPod } from '../queue/selector-job.js';
import type { BounceMode } from '../directive/types.js';
import type { PendingWait, StepContext } from './context.js';
import { bounceModeOf } from './plan.js';
import { selectorPods } from './steps/replacements.js';

/**
 * DESIGN §4: never more than maxUnavailable of a selector's pods down because of pod-bouncer.
 * A new Ready pod does not tell whose it is: a scale-up, a drain's replacement and a bounced
 * pod's replacement come from the same controller. So, as the disruption controller counts a
 * PodDisruptionBudget against the controller's scale, a selector counts what each owner of its
 * chosen pods misses now (wanted pods less Ready, not terminating selector pods) beyond what it
 * missed just before the first batch: a scale-up's pods are wanted before they are Ready, and a
 * pod that was not Ready then (crash-looping) never stalls the selector. At most the owner's
 * pods this selector bounced count: others' disruptions beyond them are not its to wait for.
 */

export function keyOf(owner: { kind: string; name: string }): string {
  return `${owner.kind}/${owner.name}`;
}

/**
 * What an owner misses: the pods it wants less its Ready ones, never below 0. Pods beyond its
 * scale (a scale-down not carried out yet) are about to go: they offset nothing.
 */
export function shortOf(want: number, healthy: number): number {
  return Math.max(0, want - healthy);
}

/**
 * Of an owner's chosen pods down (`chosenDown`), how many its scale says are still down: what it
 * misses now beyond what it missed before the first batch (`short`).
 */
export function ownerDown(owner: {
  want: number;
  healthy: number;
  short: number;
  chosenDown: number;
}): number {
  return Math.min(owner.chosenDown, Math.max(0, shortOf(owner.want, owner.healthy) - owner.short));
}

/** Ready, not terminating pods per controller owner. */
export function healthyByOwner(pods: readonly PodInfo[]): Map<string, number> {
  const healthy = new Map<string, number>();
  for (const pod of pods) {
    if (pod.owner === undefined || !pod.ready || pod.terminating) continue;
    const key = keyOf(pod.owner);
    healthy.set(key, (healthy.get(key) ?? 0) + 1);
  }
  return healthy;
}

/**
 * Per controller owner, its chosen pods that are down and may be this run's doing: bounced here,
 * or not Ready now (sent by another selector of the run, gone, or terminating).
 */
function chosenDownByOwner(
  chosen: readonly ChosenPod[],
  bounced: ReadonlySet<string>,
  pods: readonly PodInfo[],
): Map<string, number> {
  const up = new Set(pods.filter((pod) => pod.ready && !pod.terminating).map((pod) => pod.uid));
  const down = new Map<string, number>();
  for (const pod of chosen) {
    if (pod.owner === undefined || (!bounced.has(pod.uid) && up.has(pod.uid))) continue;
    down.set(keyOf(pod.owner), (down.get(keyOf(pod.owner)) ?? 0) + 1);
  }
  return down;
}

/** The chosen pods' controller owners, by key. */
export function ownersOf(
  chosen: readonly ChosenPod[],
): Map<string, { kind: string; name: string }> {
  const owners = new Map<string, { kind: string; name: string }>();
  for (const pod of chosen) if (pod.owner !== undefined) owners.set(keyOf(pod.owner), pod.owner);
  return owners;
}

/**
 * What an owner wants now (undefined: another kind, or gone). A ReplicaSet's scale comes from
 * the shared ReplicaSet watch once it is synced (its first read starts it), so a batch's re-check
 * costs no request; until then, and for other kinds, a GET. A scale-up reaches the watch before
 * its pods exist, let alone turn Ready, so the cache does not show new Ready pods of a scale it
 * has not seen unless its stream lags the pod watch's by a pod's time to Ready.
 */
export async function wanted(
  context: StepContext,
  owner: { kind: string; name: string },
): Promise<number | undefined> {
  const { namespace } = context.data.selector;
  if (owner.kind === 'ReplicaSet') {
    const cached = context.deps.view?.replicaSetScale(namespace, owner.name);
    if (cached !== undefined) return cached.replicas;
  }
  return context.deps.kube.owners.desiredPods(namespace, owner);
}

/**
 * Starts the namespace's ReplicaSet watch when the choice may come to read a ReplicaSet's scale
 * (several batches need two chosen pods at least; a rollout reads none), so that it has listed
 * by the first read instead of that read being a GET.
 */
export function watchOwnersOf(context: StepContext, chosen: readonly ChosenPod[]): void {
  if (bounceModeOf(context.deps.settings, context.data.selector) === 'rollout') return;
  const ofReplicaSets = chosen.filter((pod) => pod.owner?.kind === 'ReplicaSet');
  if (ofReplicaSets.length > 1)
    context.deps.view?.watchReplicaSets(context.data.selector.namespace);
}

/**
 * Just before the first of several batches is sent: what each owner of the chosen pods misses
 * already, saved before anything is sent. Owners of other kinds are left out (only the
 * replacement count holds their batches); a rollout restarts owners, whose controllers keep count.
 */
export async function recordOwnersShort(
  context: StepContext,
  mode: BounceMode,
  { batches, bounced }: { batches: number; bounced: ReadonlySet<string> },
): Promise<void> {
  if (mode === 'rollout' || batches < 2 || bounced.size > 0) return;
  const healthy = healthyByOwner(await selectorPods(context));
  const ownersShort: Record<string, number> = {};
  for (const [key, owner] of ownersOf(context.progress.chosen ?? [])) {
    const want = await wanted(context, owner);
    if (want !== undefined) ownersShort[key] = shortOf(want, healthy.get(key) ?? 0);
  }
  await context.save({ ownersShort });
}

/**
 * How many of the chosen pods are down now, counted against their owners' scale: per owner, what
 * it misses beyond what it missed before the first batch, at most its chosen pods bounced or not
 * Ready. One owner read per owner with such a pod (a ReplicaSet's from its watch once synced).
 */
async function ownersDown(
  context: StepContext,
  pods: readonly PodInfo[],
  bounced: ReadonlySet<string>,
): Promise<number> {
  const before = context.progress.ownersShort;
  if (before === undefined) return 0;
  const sent = chosenDownByOwner(context.progress.chosen ?? [], bounced, pods);
  const healthy = healthyByOwner(pods);
  const owners = ownersOf(context.progress.chosen ?? []);
  let down = 0;
  for (const [key, count] of sent) {
    const owner = owners.get(key);
    const short = before[key];
    if (owner === undefined || short === undefined) continue;
    const want = await wanted(context, owner);
    if (want === undefined) continue;
    down += ownerDown({ want, healthy: healthy.get(key) ?? 0, short, chosenDown: count });
  }
  return down;
}

/**
 * Before a batch whose replacements are counted Ready: a wait while more of the chosen pods are
 * down against their owners' scale than `room` (what the batch leaves of maxUnavailable) allows.
 * Woken by any pod of the namespace turning Ready, re-checked at every poll besides.
 */
export async function ownersWait(
  context: StepContext,
  seen: {
    pods: readonly PodInfo[];
    bounced: ReadonlySet<string>;
    counts: PendingWait['counts'];
    /** What the wait holds, as its text ends (" before the next batch", or nothing). */
    holds: string;
  },
  room: number,
): Promise<PendingWait | undefined> {
  const down = await ownersDown(context, seen.pods, seen.bounced);
  if (down <= room) return undefined;
  const { namespace } = context.data.selector;
  return {
    what: `${down} pod(s) in ${namespace} back to their owners' scale${seen.holds}`,
    counts: seen.counts,
    timeoutSeconds: context.deps.settings.readinessTimeoutSeconds,
    wake: { kind: 'podReady', namespace },
  };
}
