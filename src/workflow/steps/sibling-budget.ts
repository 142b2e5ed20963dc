import type { ChosenPod } from '../../queue/selector-job.js';
import type { PendingWait, StepContext } from '../context.js';
import type { BounceMode } from '../../directive/types.js';
import { ownerKey, type FirstBounces } from '../others-down.js';
import { choiceOf, creditOf, overlapsAnother, type SiblingChoice } from '../sibling-down.js';
import { countsOf } from './waits.js';

/**
 * Whether the selector is one of several of the run at once whose labels may match the same pods:
 * only then do its pods count against another's maxUnavailable, and another's against its own.
 */
export function sharesPods(context: StepContext): boolean {
  const { data, directive } = context;
  return (
    data.order !== undefined && overlapsAnother(directive.spec.podsToBounce, data.selectorIndex)
  );
}

/**
 * Before the selector's first batch: its choice and maxUnavailable, for the run's other selectors'
 * chunks to be checked against. A rollout restarts owners, whose controllers keep the pods' count.
 */
export async function registerChoice(
  context: StepContext,
  mode: BounceMode,
  limit: number,
): Promise<void> {
  if (mode === 'rollout' || !sharesPods(context)) return;
  const choice = choiceOf(context.data.selector, context.progress.chosen ?? [], limit);
  await context.deps.sent?.registerChoice(context.data, choice);
}

/** Of a selector's chosen pods not reached yet, those another selector of the run has sent. */
export interface SiblingsSent {
  count: number;
  /**
   * The second of the run's first bounce to a pod of their owners (epoch ms): their replacements,
   * which offset them, may be older than this selector's own first bounce.
   */
  since?: number;
}

const NONE_SENT: SiblingsSent = { count: 0 };

/** Of the chosen pods not reached yet (`unreached`, controlled), those a sibling has sent. */
export async function siblingsSent(
  context: StepContext,
  unreached: readonly ChosenPod[],
): Promise<SiblingsSent> {
  const { data, deps } = context;
  if (!sharesPods(context)) return NONE_SENT;
  const uids = unreached.map((pod) => pod.uid);
  const sent = new Set((await deps.sent?.sentBySiblings(data, uids)) ?? []);
  if (sent.size === 0) return NONE_SENT;
  const first = (await deps.sent?.firstBounces(data)) ?? new Map<string, number>();
  const pods = unreached.filter((pod) => sent.has(pod.uid));
  const since = earliestBounce(data.selector.namespace, pods, first);
  return { count: sent.size, ...(since === undefined ? {} : { since }) };
}

/** The earliest second the run first bounced a pod of one of these pods' owners, if any. */
function earliestBounce(
  namespace: string,
  pods: readonly ChosenPod[],
  first: FirstBounces,
): number | undefined {
  const seconds = pods.flatMap((pod) => {
    const at = pod.owner === undefined ? undefined : first.get(ownerKey(namespace, pod.owner));
    return at === undefined ? [] : [at];
  });
  return seconds.length === 0 ? undefined : Math.min(...seconds);
}

/**
 * The credits a chunk is recorded with (`sibling-down.ts`): this selector's own (what its batch
 * gate counted), and, for every other selector of the run that chose a pod of the chunk, its
 * Ready replacements now, from the pod watch when it is synced (else a LIST).
 */
export async function chunkCredits(
  context: StepContext,
  chunk: readonly ChosenPod[],
  own: number,
): Promise<Record<string, number>> {
  const { data, deps } = context;
  const credits: Record<string, number> = { [String(data.selectorIndex)]: own };
  if (!sharesPods(context)) return credits;
  const controlled = chunk.filter((pod) => pod.owner !== undefined).map((pod) => pod.uid);
  const choices =
    (await deps.sent?.siblingChoices(data, controlled)) ?? new Map<string, SiblingChoice>();
  if (choices.size === 0) return credits;
  const first = (await deps.sent?.firstBounces(data)) ?? new Map<string, number>();
  for (const [index, choice] of choices) {
    const pods =
      deps.view?.pods(choice.n, choice.l) ?? (await deps.kube.listPods(choice.n, choice.l));
    credits[index] = creditOf(choice, pods, first);
  }
  return credits;
}

/**
 * A chunk held back: sending it would take more of a selector's pods down than its maxUnavailable
 * allows (this one's, or another selector's of the run that chose them too). Woken when a pod of
 * that namespace turns Ready, as a replacement does.
 */
export async function siblingWait(
  context: StepContext,
  bounced: Set<string>,
  heldBy: string,
): Promise<PendingWait> {
  const { data, deps } = context;
  const own = heldBy === String(data.selectorIndex);
  const namespace = own
    ? data.selector.namespace
    : ((await deps.sent?.siblingChoiceOf(data, heldBy))?.n ?? data.selector.namespace);
  const whose = own ? 'this selector' : `selector ${heldBy} of the run`;
  return {
    what: `Ready replacements in ${namespace}: ${whose} has maxUnavailable pods down`,
    status: `replacements of the pods ${whose} has down`,
    counts: countsOf(context, bounced),
    timeoutSeconds: deps.settings.readinessTimeoutSeconds,
    wake: { kind: 'podReady', namespace },
  };
}
