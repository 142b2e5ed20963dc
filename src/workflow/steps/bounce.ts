import type { ChosenPod } from '../../queue/selector-job.js';
import type { StepContext, StepOutcome } from '../context.js';

/** Deletions sent together; each batch is recorded as in flight before it is sent. */
const BATCH_SIZE = 10;
/**
 * Every batch rewrites the job's progress (all chosen uids), so a selector of n pods in batches
 * of 10 writes O(n²) bytes to Redis. Big selectors use bigger batches: at most this many.
 */
const MAX_BATCHES = 50;

type Removal = 'done' | 'blocked';

async function remove(context: StepContext, pod: ChosenPod): Promise<Removal> {
  const { kube, settings } = context.deps;
  const namespace = context.data.selector.namespace;
  if (settings.bounceMode === 'evict') {
    const outcome = await kube.evictPod(namespace, pod.name, pod.uid);
    return outcome === 'blocked' ? 'blocked' : 'done';
  }
  await kube.deletePod(namespace, pod.name, pod.uid);
  return 'done';
}

/**
 * A deletion that was in flight when a previous run died may have landed: look before sending it
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

/**
 * Deletes (or evicts) every chosen pod exactly once, guarded by its uid so that a replacement
 * reusing the name is never touched. Progress is persisted around every batch.
 */
export async function bounce(context: StepContext): Promise<StepOutcome> {
  const bounced = new Set(context.progress.bounced ?? []);
  await settleInFlight(context, bounced);
  const pending = (context.progress.chosen ?? []).filter((pod) => !bounced.has(pod.uid));
  const size = Math.max(BATCH_SIZE, Math.ceil(pending.length / MAX_BATCHES));
  for (let start = 0; start < pending.length; start += size) {
    const batch = pending.slice(start, start + size);
    await context.save({ bounced: [...bounced], inFlight: batch.map((pod) => pod.uid) });
    const outcomes = await Promise.all(batch.map((pod) => remove(context, pod)));
    batch.forEach((pod, index) => outcomes[index] === 'done' && bounced.add(pod.uid));
    await context.save({ bounced: [...bounced], inFlight: [] });
    const done = batch.filter((_, index) => outcomes[index] === 'done');
    if (done.length > 0) await context.note(`bounced ${done.map((pod) => pod.name).join(', ')}`);
    if (outcomes.includes('blocked')) {
      return {
        wait: {
          what: `eviction allowed by a PodDisruptionBudget in ${context.data.selector.namespace}`,
          timeoutSeconds: context.deps.settings.readinessTimeoutSeconds,
          wake: { kind: 'podReady', namespace: context.data.selector.namespace },
        },
      };
    }
  }
  return { next: 'waitForReplicas' };
}
