import { AbortedError } from '../../errors.js';
import type { ChosenPod } from '../../queue/selector-job.js';
import { owesReplacement, replacementsWanted } from '../batches.js';
import { DONE, pausedNow } from '../context.js';
import type { PendingWait, StepContext, StepOutcome } from '../context.js';
import { strategyOf, type BounceStrategy } from '../modes/index.js';
import { planOf } from './bounce-plan.js';
import { inheritedDown } from '../others-down.js';
import { ownersWait, recordOwnersShort } from '../owners-down.js';
import { unwantedBounced } from '../scale-down.js';
import * as replacements from './replacements.js';
import { gateWait, soakWait } from './gates.js';
import { slotWait, stepAside } from './order.js';
import { chunkCredits, registerChoice, siblingWait, siblingsSent } from './sibling-budget.js';
import { underLease } from './under-lease.js';
import { budgetWait, clockAfter, countsOf, pausedWait } from './waits.js';

/**
 * Requests sent together inside a batch; each chunk is recorded as in flight before it is sent.
 * Every chunk rewrites the job's progress (all chosen uids), so a big batch uses bigger chunks
 * (at most 50 of them) to keep Redis writes linear in the pods.
 */
const CHUNK = 10;
const MAX_CHUNKS = 50;

/** What a batch gate holds, told in its wait (after the last batch: nothing more to tell). */
const BEFORE_NEXT = ' before the next batch';

/** A pod another selector or directive sends: for this one, bounced without a request. */
const LANDED = Promise.resolve('done' as const);

/**
 * A bounce that was in flight when a previous run died may have landed: look before sending it
 * again. Gone, replaced (another uid) or terminating all mean it landed.
 */
async function settleInFlight(context: StepContext, bounced: Set<string>): Promise<void> {
  const chosen = context.progress.chosen ?? [];
  for (const uid of context.progress.inFlight ?? []) {
    const pod = chosen.find((candidate) => candidate.uid === uid);
    if (pod === undefined || bounced.has(uid)) continue;
    const live = await context.deps.kube.getPod(context.data.selector.namespace, pod.name);
    if (live === undefined || live.uid !== uid || live.terminating) bounced.add(uid);
  }
}

/** How a batch went: evictions refused (how many), or pods held back by a selector's budget. */
interface BatchSent {
  refused: number;
  heldBy?: string;
}

/**
 * Sends one batch, chunk by chunk, recording each chunk in flight first. `credit`: what offsets
 * the selector's pods down, as its batch gate counted it.
 */
async function sendBatch(
  context: StepContext,
  strategy: BounceStrategy,
  { pods, credit }: { pods: ChosenPod[]; credit: number },
  bounced: Set<string>,
): Promise<BatchSent> {
  const size = Math.max(CHUNK, Math.ceil(pods.length / MAX_CHUNKS));
  let refused = 0;
  for (let start = 0; start < pods.length; start += size) {
    const whole = pods.slice(start, start + size);
    const inFlight = whole.map((pod) => pod.uid);
    await context.save({ bounced: [...bounced], inFlight, ...replacements.firstSent(context) });
    // Under the lease, before it is sent: a newer run counts these as down until replaced. A pod
    // another selector of the run recorded first is its to send: gone or going by this run's
    // hand, it counts as bounced here too, and its replacement is waited for as any other's; so
    // does a pod another directive's run claimed first. A pod that would take a selector that
    // chose it past its maxUnavailable is held back, unsent; so is one claimed after another
    // directive claimed more than the batch gate counted.
    const credits = await chunkCredits(context, whole, credit);
    const fence = replacements.claimsFence(context);
    const answer = await context.deps.sent?.record(context.data, whole, { credits, fence });
    const taken = new Set(answer?.taken ?? []);
    const held = new Set(answer?.held ?? []);
    await replacements.takenFrom(context, whole, taken, answer?.claimed);
    const chunk = whole.filter((pod) => !held.has(pod.uid));
    const outcomes = await Promise.all(
      chunk.map((pod) => (taken.has(pod.uid) ? LANDED : strategy.bouncePod(context, pod))),
    );
    context.effectSent();
    chunk.forEach((pod, index) => outcomes[index] === 'done' && bounced.add(pod.uid));
    // Staged: the next write (the gate's wait, the next chunk) carries it; a crash before it
    // leaves the chunk in flight, and a re-run reads those pods instead of sending anything again.
    context.stage({ bounced: [...bounced], inFlight: [], ...clockAfter(outcomes) });
    const done = chunk.filter((pod, index) => outcomes[index] === 'done' && !taken.has(pod.uid));
    if (done.length > 0) {
      context.note(`${strategy.mode}: ${done.map((pod) => pod.name).join(', ')}`);
    }
    refused += outcomes.filter((outcome) => outcome === 'blocked').length;
    if (answer?.heldBy !== undefined) return { refused, heldBy: answer.heldBy };
  }
  return { refused };
}

/**
 * Before a batch: the replacements of the pods bounced so far, less slack, counting as down too
 * the pods another run of the directive, or another directive's run, took down (`others-down.ts`):
 * what that run has still owed is waited for as replacements, and its replacements this run
 * chose, not Ready yet, take slack; and the chosen pods another selector of this run sent
 * (`sibling-down.ts`), not reached yet.
 * Clear: the credit its chunks are recorded with, what offsets its pods sent.
 */
async function batchGate(
  context: StepContext,
  bounced: Set<string>,
  limit: number,
  { nextBatch, holds = '' }: { nextBatch: number; holds?: string },
): Promise<PendingWait | number> {
  const chosen = context.progress.chosen ?? [];
  const inherited = await replacements.inheritedNow(context, bounced);
  // A pod a sibling sent counts as down here only if it owes a replacement.
  const unreached = chosen.filter((pod) => owesReplacement(pod) && !bounced.has(pod.uid));
  const sent =
    bounced.size === chosen.length ? { count: 0 } : await siblingsSent(context, unreached);
  const siblings = sent.count;
  const own = replacementsWanted(chosen, bounced, limit - siblings, nextBatch);
  if (own === 0 && inherited.taken.length === 0) return 0;
  const pods = await replacements.selectorPods(context);
  const others = inheritedDown(inherited, bounced, pods);
  const slack = limit - others.unready - siblings;
  const wanted = replacementsWanted(chosen, bounced, slack, nextBatch) + others.owed;
  // The siblings' pods counted down are offset by their replacements: made since the run's first
  // bounce to a pod of their owners, perhaps before this selector's own.
  const since = replacements.earliest(inherited.since, sent.since);
  const replaced = replacements.replacementsAmong(context, pods, { ...inherited, since });
  const ready = replaced.length;
  // Bounced pods their owners no longer want (scaled down mid-run) count as replaced.
  const unwanted = ready < wanted ? await unwantedBounced(context, { pods, bounced, replaced }) : 0;
  const { namespace, labels } = context.data.selector;
  if (wanted === 0 || ready + unwanted >= wanted) {
    // New Ready pods may be a scale-up's or a drain's: the owners' scale tells what is still down.
    const counts = { ...countsOf(context, bounced), ready, wanted };
    const held = await ownersWait(context, { pods, bounced, counts, holds }, limit - nextBatch);
    return held ?? ready + unwanted - others.unready - others.owed;
  }
  return {
    what: `${wanted} Ready replacement pod(s) in ${namespace}${holds} (${ready} so far)`,
    counts: { ...countsOf(context, bounced), ready, wanted },
    timeoutSeconds: context.deps.settings.readinessTimeoutSeconds,
    wake: {
      kind: 'replicas',
      namespace,
      labels,
      wanted,
      exclude: [...chosen.map((pod) => pod.uid), ...inherited.taken],
      since: replacements.replacementsSince(context, since),
    },
  };
}

/**
 * After a batch: tells the status, and what is left to wait for: pods held back by a selector's
 * budget, or refused by a PodDisruptionBudget.
 */
async function afterBatch(
  context: StepContext,
  sent: BatchSent,
  bounced: Set<string>,
  sizeBefore: number,
): Promise<PendingWait | undefined> {
  // A batch held back whole by a selector's budget bounced nothing to tell.
  if (sent.heldBy === undefined || bounced.size > sizeBefore) {
    await context.report({ kind: 'batchBounced', counts: countsOf(context, bounced) });
  }
  if (sent.heldBy !== undefined) return siblingWait(context, bounced, sent.heldBy);
  return sent.refused > 0 ? budgetWait(context, bounced, sent.refused) : undefined;
}

/**
 * What holds the next batch, in order (DESIGN §4): the previous batch's replacements, the abort
 * mark, the pause annotation (shown even when a gate is closed too), the soak after the previous
 * batch, and the gates. A number: send it, with that credit.
 */
async function beforeBatch(
  context: StepContext,
  bounced: Set<string>,
  limit: number,
  size: number,
): Promise<PendingWait | number> {
  const credit = await batchGate(context, bounced, limit, { nextBatch: size, holds: BEFORE_NEXT });
  if (typeof credit !== 'number') return credit;
  if (await context.isAborted()) throw new AbortedError();
  if (pausedNow(context)) return pausedWait(context, bounced);
  const held = (await soakWait(context, bounced)) ?? (await gateWait(context, bounced));
  if (held !== undefined) return stepAside(context, held);
  // The first batch takes one of the run's selector slots (maxConcurrentSelectors).
  return (bounced.size === 0 ? await slotWait(context) : undefined) ?? credit;
}

/**
 * Carries out the plan: what its mode does first (rollout: the owners), then every pod of
 * its batches exactly once, in batches of at most maxUnavailable (DESIGN §4 step 3), each guarded
 * by the pod's uid so that a replacement reusing the name is never touched. Before each batch:
 * the replacements, the abort mark, the pause annotation, the soak and the gates; each is sent
 * under the directive's bounce lease, so a run superseded meanwhile sends nothing more. Progress
 * is persisted around every chunk, so a re-run resumes with the batch it was in.
 */
export async function bounce(context: StepContext): Promise<StepOutcome> {
  const strategy = strategyOf(context.deps.settings, context.data.selector);
  const plan = await planOf(context);
  const limit = plan.maxUnavailable;
  const before = (await strategy.beforeBatches?.(context, plan)) ?? 'done';
  if (before !== 'done') return before;
  const bounced = new Set(context.progress.bounced ?? []);
  await settleInFlight(context, bounced);
  if (bounced.size === 0) await registerChoice(context, strategy.mode, limit);
  for (const planned of plan.batches) {
    const batch = planned.filter((pod) => !bounced.has(pod.uid));
    if (batch.length === 0) continue;
    const credit = await beforeBatch(context, bounced, limit, batch.length);
    if (typeof credit !== 'number') return { wait: credit };
    await recordOwnersShort(context, strategy.mode, { batches: plan.batches.length, bounced });
    const sizeBefore = bounced.size;
    // Under the directive's bounce lease: a run superseded meanwhile sends nothing more.
    const sent = await underLease(context, () =>
      sendBatch(context, strategy, { pods: batch, credit }, bounced),
    );
    if (!('value' in sent)) return sent;
    const held = await afterBatch(context, sent.value, bounced, sizeBefore);
    if (held !== undefined) return { wait: held };
  }
  return lastReplacements(context, strategy, bounced, limit);
}

/**
 * DESIGN §4: a FINISHED run has replaced every pod it chose, and a selector holds its slot while
 * its pods are down: the last batch's replacements are waited for as any other's (rollout mode
 * waited for its owners' rollouts already).
 */
async function lastReplacements(
  context: StepContext,
  strategy: BounceStrategy,
  bounced: Set<string>,
  limit: number,
): Promise<StepOutcome> {
  if (strategy.mode === 'rollout') return DONE;
  const last = await batchGate(context, bounced, limit, { nextBatch: limit });
  return typeof last === 'number' ? DONE : { wait: last };
}
