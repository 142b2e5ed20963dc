import type { PodInfo } from '../kube/pods.js';

/** A pod a run sent a bounce to, and the second it was sent in (`sent-pods.ts`). */
export interface SentPod {
  uid: string;
  /** Epoch ms, whole seconds: a pod created in or after it may be this pod's replacement. */
  since: number;
  /** The run that sent it had inherited it as another run's replacement: it holds an older slot. */
  replacement?: boolean;
  /** Pods its run knew to be no replacement of any bounce (`originalsAtChoice`), on one entry. */
  originals?: string[];
}

/**
 * What the bounces of the directive's other runs, and of other directives' runs, cost a selector
 * when this run chose its pods (under the bounce lease, so no other run of the directive sends
 * anything meanwhile; `withClaims` adds what other directives claimed since).
 */
export interface Inherited {
  /** The pods another run took down: never a replacement, however a lagging watch shows them. */
  taken: string[];
  /** Of those, how many are owed a Ready replacement outside this run's chosen pods. */
  owed: number;
  /** Chosen pods that may be another run's replacements: down while they are not Ready. */
  theirs: string[];
  /**
   * The second the first of `taken` was sent in (epoch ms): their replacements may be that old,
   * older than this run's first bounce. Absent when nothing was taken.
   */
  since?: number;
}

export const NOTHING_INHERITED: Inherited = { taken: [], owed: 0, theirs: [] };

/**
 * Of a run's chosen pods, those created in the second it was accepted in that it does not take
 * for another run's replacements: they existed before every bounce it did not see (sent after its
 * choice, in that second or later), and are older than every one it saw (`inherited.since`) or
 * known originals already, so they replace no pod. A later run that chooses them too cannot tell
 * them by their creationTimestamp from the replacements of a bounce sent in that second (a
 * workload created in the second its run sent its first batch): it reads them in the sending
 * run's record (`SentPods.keepInherited`, `RECORD_SENT`). Usually none: pods predate their run.
 */
export function originalsAtChoice(
  chosen: readonly PodInfo[],
  inherited: Inherited,
  acceptedSecond: number,
): string[] {
  const theirs = new Set(inherited.theirs);
  return chosen
    .filter((pod) => pod.createdAt.getTime() >= acceptedSecond && !theirs.has(pod.uid))
    .map((pod) => pod.uid);
}

/**
 * DESIGN §4: never more than maxUnavailable of a selector's pods down because of pod-bouncer,
 * whichever run took them down, of this directive or another (`sent`: the selector's entries and
 * the claims other directives made on its pods' owners' pods). A pod another run sent a bounce to
 * and that is not among this run's chosen was terminating or gone when this run chose: it is owed
 * a Ready replacement that this run did not choose, unless this run chose that replacement itself
 * (a chosen pod created in or after the second the first of them was sent, unless a run recorded
 * it as one of its originals: `originalsAtChoice`). A slot is owed once:
 * a replacement that a later run bounced again (A, then A', then A'' chosen now) is the same slot
 * as the pod it replaced, so only the pods sent that were no one's replacement are owed. Pods not
 * Ready for reasons of their own (created before any of those bounces) count for nothing: a
 * crash-looping pod must not stall the selector.
 */
export function inheritedAtChoice(sent: readonly SentPod[], chosen: readonly PodInfo[]): Inherited {
  const chosenUids = new Set(chosen.map((pod) => pod.uid));
  const others = sent.filter((pod) => !chosenUids.has(pod.uid));
  if (others.length === 0) return NOTHING_INHERITED;
  const since = Math.min(...others.map((pod) => pod.since));
  // An original created in that very second looks like a replacement: its run's record tells.
  const originals = new Set(sent.flatMap((pod) => pod.originals ?? []));
  const theirs = chosen
    .filter((pod) => pod.createdAt.getTime() >= since && !originals.has(pod.uid))
    .map((pod) => pod.uid);
  const taken = others.map((pod) => pod.uid);
  const slots = others.filter((pod) => pod.replacement !== true).length;
  return { taken, owed: Math.max(0, slots - theirs.length), theirs, since };
}

/**
 * What a job inherited, with the pods another directive's run claimed since it chose (`claimed`:
 * of the selector's owners, within the age limit): each is down until replaced, as a pod another
 * run sent is, and owed a Ready replacement unless it held a replacement's slot. Those already
 * inherited, and those this job counts as bounced (sent, or taken as claimed), are counted there.
 */
export function withClaims(
  inherited: Inherited,
  claimed: readonly SentPod[],
  bounced: ReadonlySet<string>,
): Inherited {
  const known = new Set(inherited.taken);
  const fresh = claimed.filter((pod) => !known.has(pod.uid) && !bounced.has(pod.uid));
  if (fresh.length === 0) return inherited;
  const slots = fresh.filter((pod) => pod.replacement !== true).length;
  const since = Math.min(...fresh.map((pod) => pod.since), inherited.since ?? Infinity);
  const taken = [...inherited.taken, ...fresh.map((pod) => pod.uid)];
  return { ...inherited, taken, owed: inherited.owed + slots, since };
}

/** A selector's entries of pods sent (`RECORD_SENT`), read back: those sent at or after `oldest`. */
export function parseSent(raw: string, oldest: number): SentPod[] {
  const parsed: unknown = raw === '' ? [] : JSON.parse(raw);
  const entries = Array.isArray(parsed)
    ? (parsed as { u: string; s: number; r?: 1; p?: string[] }[])
    : [];
  return entries
    .filter(({ s }) => s >= oldest)
    .map(({ u, s, r, p }) => ({
      uid: u,
      since: s,
      ...(r === 1 ? { replacement: true } : {}),
      ...(Array.isArray(p) ? { originals: p } : {}),
    }));
}

/** What a job kept when it chose (`SentPods.keepInherited`), read back. */
export function parseInherited(raw: string): Inherited {
  const parsed = JSON.parse(raw) as Partial<Inherited>;
  const list = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : []);
  return {
    taken: list(parsed.taken),
    owed: Number(parsed.owed ?? 0),
    theirs: list(parsed.theirs),
    ...(typeof parsed.since === 'number' ? { since: parsed.since } : {}),
  };
}

/** Pods another run took down, as counted against this run's maxUnavailable now. */
export function inheritedDown(
  inherited: Inherited,
  bounced: ReadonlySet<string>,
  pods: readonly PodInfo[],
): { owed: number; unready: number } {
  const theirs = new Set(inherited.theirs);
  const unready = pods.filter(
    (pod) => theirs.has(pod.uid) && !bounced.has(pod.uid) && !pod.terminating && !pod.ready,
  ).length;
  return { owed: inherited.owed, unready };
}

/** A controller owner as the run's owners name it: namespace, kind and name. */
export function ownerKey(namespace: string, owner: { kind: string; name: string }): string {
  return `${namespace}/${owner.kind}/${owner.name}`;
}

/**
 * The seconds in which a run first sent a bounce to a pod of each controller owner (epoch ms,
 * by `ownerKey`): what tells the run's own replacements from older pods.
 */
export type FirstBounces = ReadonlyMap<string, number>;

/**
 * DESIGN §4: no replacement pod is bounced by the run that caused it. A pod whose controller
 * owner had a pod bounced by this run, created in or after the second of the first such bounce,
 * is that replacement (a StatefulSet's too: same owner, same name, another uid), even when it
 * was created in the second the run was accepted, where creationTimestamp alone cannot tell it
 * from an older pod. A pod of an owner the run did not touch is no replacement of it.
 */
export function isOwnReplacement(pod: PodInfo, namespace: string, first: FirstBounces): boolean {
  if (pod.owner === undefined) return false;
  const since = first.get(ownerKey(namespace, pod.owner));
  return since !== undefined && pod.createdAt.getTime() >= since;
}
