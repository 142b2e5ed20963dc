import type { PodInfo } from '../../kube/pods.js';
import { DONE, type StepContext, type StepOutcome } from '../context.js';
import { chosenPod } from '../plan.js';

/**
 * A pod needs bouncing unless it is already terminating or was created at or after `issuedAt`
 * (creationTimestamp has one-second precision, so equal means "already has the new cert";
 * anything earlier is bounced: when in doubt, bounce).
 */
export function needsBounce(pod: PodInfo, issuedAt: Date | undefined): boolean {
  if (pod.terminating) return false;
  return issuedAt === undefined || pod.createdAt.getTime() < issuedAt.getTime();
}

/**
 * Chooses the selector's pods once, records names, uids and owners in the job and names in
 * `status.podsBounced[i]`, all before anything is deleted. A re-run reuses the recorded choice.
 */
export async function select(context: StepContext): Promise<StepOutcome> {
  const { data, deps } = context;
  let chosen = context.progress.chosen;
  if (chosen === undefined) {
    const issuedAt = data.issuedAt === undefined ? undefined : new Date(data.issuedAt);
    // The gates and waits to come read the namespace's pod watch: started now, it lists
    // meanwhile instead of at the first gate (where a read before it has listed costs a LIST).
    deps.view?.watchPods(data.selector.namespace);
    const pods = await deps.kube.listPods(data.selector.namespace, data.selector.labels);
    chosen = pods.filter((pod) => needsBounce(pod, issuedAt)).map(chosenPod);
    await context.save({ chosen, bounced: [], inFlight: [] });
    const skipped = pods.length - chosen.length;
    context.note(
      `chose ${chosen.length} pod(s) in ${data.selector.namespace}${skipped ? ` (${skipped} skipped: terminating or created after issuedAt)` : ''}: ${chosen.map((pod) => pod.name).join(', ')}`,
    );
  }
  // The write carries the cached resourceVersion: a stale cache costs a 409 and a re-read.
  const written = await context.report({ kind: 'chosen', names: chosen.map((pod) => pod.name) });
  if (written === 'stale' || written === 'gone') {
    // Superseded or deleted since this run began: the old chain bounces nothing more.
    await context.save({ chosen: [] });
    context.note(`directive ${written === 'gone' ? 'deleted' : 'superseded'}; nothing bounced`);
    return { end: written === 'gone' ? 'directive-deleted' : 'superseded' };
  }
  return DONE;
}
