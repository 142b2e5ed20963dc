import type { PodInfo } from '../../kube/pods.js';
import type { ChosenPod } from '../../queue/selector-job.js';
import type { StepContext } from '../context.js';
import { claimOwners, type ClaimsFence } from '../pod-claims.js';
import { NOTHING_INHERITED, withClaims, type Inherited } from '../others-down.js';
import { ownerKey } from '../others-down.js';

/**
 * The selector's pods, from the shared pod watch when it is synced, so a re-check costs no API
 * request; else a LIST.
 */
export async function selectorPods(context: StepContext): Promise<PodInfo[]> {
  const { selector } = context.data;
  return (
    context.deps.view?.pods(selector.namespace, selector.labels) ??
    (await context.deps.kube.listPods(selector.namespace, selector.labels))
  );
}

/**
 * Of `pods`, those Ready, not terminating and not among the chosen (what `waitForReplicas`
 * counts: DESIGN §4 step 4, pods left alone as new enough included).
 */
export function readyNotChosen(context: StepContext, pods: readonly PodInfo[]): PodInfo[] {
  const chosen = new Set((context.progress.chosen ?? []).map((pod) => pod.uid));
  return pods.filter((pod) => pod.ready && !pod.terminating && !chosen.has(pod.uid));
}

/**
 * The oldest a replacement of the selector's bounced pods may be: the second of its first bounce
 * (`firstSentAt`), or of the first bounce by another run, or another selector of the run, it
 * counts as down (`inherited`: their replacements are waited for too), whichever is earlier. None
 * before anything was sent.
 */
export function replacementsSince(
  context: StepContext,
  inherited: number | undefined,
): number | undefined {
  return earliest(context.progress.firstSentAt, inherited);
}

/** The earlier of two seconds, either of which may be absent. */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? (a ?? b) : Math.min(a, b);
}

/**
 * Of `pods`, those that may replace a pod this selector bounced: Ready, not terminating, not
 * chosen, and created in or after `replacementsSince`. A pod older than that (left alone as new
 * enough, or another selector's replacement) replaces none of its pods: counting it would let a
 * batch go with the previous one still down. The whole second counts, so that a replacement
 * created in the second of the send is never missed; a StatefulSet replacement (same name,
 * another uid) is new by its creationTimestamp too.
 */
export function replacementsAmong(
  context: StepContext,
  pods: readonly PodInfo[],
  inherited: Inherited = NOTHING_INHERITED,
): PodInfo[] {
  const since = replacementsSince(context, inherited.since);
  // Pods another run took down are never replacements, however a lagging watch shows them.
  const taken = new Set(inherited.taken);
  return readyNotChosen(context, pods).filter(
    (pod) => !taken.has(pod.uid) && (since === undefined || pod.createdAt.getTime() >= since),
  );
}

/**
 * What counts as down of other bounces than this selector's before its next batch: what the job
 * inherited from the directive's other runs when it chose, and the pods of its chosen pods'
 * owners other directives' runs claimed since, read in one step (`withClaims`).
 */
export async function inheritedNow(
  context: StepContext,
  bounced: ReadonlySet<string>,
): Promise<Inherited> {
  const owners = claimOwners(context.progress.chosen ?? []);
  const read = await context.deps.sent?.inherited(context.data, owners);
  if (read === undefined) return NOTHING_INHERITED;
  fences.set(context, read.fence);
  return withClaims(read.kept, read.claimed, bounced);
}

/** The fence of each job's last batch gate, for as long as that run of the job lasts. */
const fences = new WeakMap<StepContext, ClaimsFence>();

/**
 * What the batch gate just passed counted of other directives' claims: the batch it let go is
 * recorded only while they claimed no more meanwhile (two directives' gates may open at once).
 */
export function claimsFence(context: StepContext): ClaimsFence | undefined {
  return fences.get(context);
}

/** Pods Ready, not terminating and not chosen now (`readyNotChosen` of `selectorPods`). */
export async function readyReplacements(context: StepContext): Promise<PodInfo[]> {
  return readyNotChosen(context, await selectorPods(context));
}

/** The second `now` falls in (epoch ms), as the sent pods record it (`others-down.ts`). */
export function secondOf(now: number): number {
  return Math.floor(now / 1000) * 1000;
}

/**
 * Before a chunk is recorded: the second of the selector's first bounce, kept once (a re-run
 * keeps the first). Saved with the chunk's in-flight record, before anything is sent.
 */
export function firstSent(context: StepContext, now = Date.now()): { firstSentAt: number } {
  return { firstSentAt: context.progress.firstSentAt ?? secondOf(now) };
}

/**
 * Pods of a chunk another selector of the run recorded first count as bounced here: they were
 * sent from the second of their owners' first bounce in the run at the latest, so their
 * replacements may be that old; those another directive's run sent (`claimed`) from the second
 * it claimed them in. The selector's `firstSentAt` is brought back to it.
 */
export async function takenFrom(
  context: StepContext,
  chunk: readonly ChosenPod[],
  uids: ReadonlySet<string>,
  claimed: ReadonlyMap<string, number> = new Map(),
): Promise<void> {
  const taken = chunk.filter((pod) => uids.has(pod.uid));
  if (taken.length === 0) return;
  const first = (await context.deps.sent?.firstBounces(context.data)) ?? new Map<string, number>();
  const { namespace } = context.data.selector;
  let since = context.progress.firstSentAt ?? secondOf(Date.now());
  for (const pod of taken) {
    const owner = pod.owner === undefined ? undefined : first.get(ownerKey(namespace, pod.owner));
    const at = claimed.get(pod.uid) ?? owner;
    if (at !== undefined && at < since) since = at;
  }
  context.stage({ firstSentAt: since });
}
