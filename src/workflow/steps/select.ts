import type { PodInfo } from '../../kube/pods.js';
import { runMoment } from '../../queue/run-identity.js';
import type { ChosenPod } from '../../queue/selector-job.js';
import { DONE, type StepContext, type StepOutcome } from '../context.js';
import { SpecChangedError, directiveMoved } from '../directive-check.js';
import { inheritedAtChoice, originalsAtChoice } from '../others-down.js';
import { claimOwners } from '../pod-claims.js';
import { watchOwnersOf } from '../owners-down.js';
import { chosenPod } from '../plan.js';
import { isOwnReplacement } from '../others-down.js';
import { assertStatusFits } from '../status-size.js';
import { underLease } from './under-lease.js';

/**
 * A pod needs bouncing unless it is already terminating, or was created at or after `issuedAt`
 * (creationTimestamp has one-second precision, so equal means "already has the new cert";
 * anything earlier is bounced: when in doubt, bounce), or at or after `cutoff`.
 */
export function needsBounce(pod: PodInfo, issuedAt: Date | undefined, cutoff?: Date): boolean {
  if (pod.terminating) return false;
  const created = pod.createdAt.getTime();
  if (cutoff !== undefined && created >= cutoff.getTime()) return false;
  return issuedAt === undefined || created < issuedAt.getTime();
}

/**
 * The second after the one the run was accepted in: a pod created then or later (a replacement of
 * an earlier selector's pod, of another run's, or a scale-up) is not the run's to bounce, with or
 * without an issuedAt. Whole seconds, as creationTimestamp has them: a pod created more than a
 * second after the acceptance is always at or after it.
 */
export function acceptanceCutoff(acceptedAt: string): Date {
  return new Date((Math.floor(Date.parse(acceptedAt) / 1000) + 1) * 1000);
}

/** Lists the selector's pods and records the choice in the job (under the directive's lease). */
async function choose(context: StepContext): Promise<ChosenPod[]> {
  const { data, deps } = context;
  const issuedAt = data.issuedAt === undefined ? undefined : new Date(data.issuedAt);
  // The gates and waits to come read the namespace's pod watch: started now, it lists
  // meanwhile instead of at the first gate (where a read before it has listed costs a LIST).
  deps.view?.watchPods(data.selector.namespace);
  // A LIST, not the watch cache: it must show the pods an older run's batch just took down.
  const pods = await deps.kube.listPods(data.selector.namespace, data.selector.labels);
  const cutoff = acceptanceCutoff(data.acceptedAt);
  const sent = deps.sent;
  // Read after the LIST: every replacement it shows was recorded before its pod was sent.
  const first = (await sent?.firstBounces(data)) ?? new Map<string, number>();
  // A pod made from a template this run restarted (bounceMode rollout, any selector) is the run's
  // replacement too: created in the second the run was accepted, the cutoff cannot tell it.
  const restarted = runMoment(data);
  const picked = pods.filter(
    (pod) =>
      needsBounce(pod, issuedAt, cutoff) &&
      !isOwnReplacement(pod, data.selector.namespace, first) &&
      pod.restartedAt !== restarted,
  );
  const chosen = picked.map(chosenPod);
  watchOwnersOf(context, chosen);
  // Before the choice is saved: a re-run that finds no choice chooses, and keeps this, again.
  if (sent !== undefined) {
    // Other directives' claims too, on the listed pods' owners: theirs are down as well.
    const inherited = inheritedAtChoice(await sent.list(data, claimOwners(pods)), picked);
    const accepted = cutoff.getTime() - 1000;
    await sent.keepInherited(data, inherited, originalsAtChoice(picked, inherited, accepted));
  }
  await context.save({ chosen, bounced: [], inFlight: [] });
  const skipped = pods.length - chosen.length;
  const unready = chosen.filter((pod) => pod.unready).length;
  context.note(
    `chose ${chosen.length} pod(s) in ${data.selector.namespace}${skipped ? ` (${skipped} skipped: terminating, or created after issuedAt or after the run was accepted, or replacements of its own bounces)` : ''}${unready ? ` (${unready} not Ready: no Ready replacement owed for them)` : ''}: ${chosen.map((pod) => pod.name).join(', ')}`,
  );
  return chosen;
}

/**
 * Chooses the selector's pods once, records names, uids and owners in the job and names in
 * `status.podsBounced[i]`, all before anything is deleted. A re-run reuses the recorded choice.
 * The choice is made under the directive's bounce lease: never while another run's batch is in
 * flight, and never once a newer run was accepted.
 */
export async function select(context: StepContext): Promise<StepOutcome> {
  let chosen = context.progress.chosen;
  if (chosen === undefined) {
    const choice = await underLease(context, () => choose(context));
    if (!('value' in choice)) return choice;
    chosen = choice.value;
  }
  const names = chosen.map((pod) => pod.name);
  const latest = context.deps.directives?.peek(context.data.directive) ?? context.directive;
  assertStatusFits(latest, context.data.selectorIndex, names);
  // The write carries the cached resourceVersion: a stale cache costs a 409 and a re-read.
  const written = await context.report({ kind: 'chosen', names });
  if (written === 'stale' || written === 'gone') {
    // Superseded, edited or deleted since this run began: the old chain bounces nothing more.
    await context.save({ chosen: [] });
    const moved =
      written === 'stale' ? await directiveMoved(context.deps, context.data) : undefined;
    if (typeof moved === 'object') throw new SpecChangedError(moved);
    context.note(`directive ${written === 'gone' ? 'deleted' : 'superseded'}; nothing bounced`);
    return { end: written === 'gone' ? 'directive-deleted' : 'superseded' };
  }
  return DONE;
}
