import type { SentPod } from './others-down.js';

/**
 * Other directives' claims on a namespace's pods, as the sent-pods scripts write and read them
 * (`pod-claims-script.ts`): a claim names its pod's owner by a tag, so that a selector counts as
 * down the pods of its owners another directive took down (DESIGN §4, whatever the directives).
 */

/**
 * What a batch gate counted of other directives' claims on the selector's owners' pods: a chunk
 * sent after it claims a pod only while they have made no more since (`RECORD_SENT`).
 */
export interface ClaimsFence {
  owners: readonly string[];
  /** How many there were, made at or after `oldest` (epoch ms). */
  seen: number;
  oldest: number;
}

/** The fence as `RECORD_SENT` takes it ('' for none), held back by the selector `index`'s budget. */
export function fenceArgument(fence: ClaimsFence | undefined, index: number): string {
  if (fence === undefined) return '';
  return JSON.stringify({ n: fence.seen, at: fence.oldest, o: fence.owners, i: String(index) });
}

/** The owners of `pods` as the namespace's claims name them (`<kind>/<name>`), once each. */
export function claimOwners(pods: readonly { owner?: { kind: string; name: string } }[]): string[] {
  const owners = pods.flatMap((pod) => (pod.owner ? [`${pod.owner.kind}/${pod.owner.name}`] : []));
  return [...new Set(owners)];
}

/**
 * The claims `READ_SENT` answered, three entries each: uid, second, `r` for a replacement's; the
 * pods other directives' runs knew for originals (`p`, no claim) ride on the first claim, where
 * `inheritedAtChoice` reads them.
 */
export function claimsOf(answer: readonly string[]): SentPod[] {
  const claimed: SentPod[] = [];
  const originals: string[] = [];
  for (let at = 0; at + 2 < answer.length; at += 3) {
    const [uid = '', since = '', mark] = answer.slice(at, at + 3);
    if (mark === 'p') originals.push(uid);
    else
      claimed.push({ uid, since: Number(since), ...(mark === 'r' ? { replacement: true } : {}) });
  }
  const [head, ...rest] = claimed;
  return head === undefined || originals.length === 0 ? claimed : [{ ...head, originals }, ...rest];
}
