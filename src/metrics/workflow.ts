import { Job, type MinimalQueue } from 'bullmq';
import { selectorJobId } from '../queue/names.js';
import type { SelectorJobData, SelectorProgress, SelectorStep } from '../queue/selector-job.js';
import { podsBounced, selectorDuration, waitDuration } from './registry.js';

const GATES: Partial<Record<SelectorStep, string>> = {
  rootCertSync: 'rootCertSync',
  bounce: 'eviction',
  waitForReplicas: 'waitForReplicas',
};

/** True when the step is a gate this selector actually has (an unset gate passes at once). */
function hasGate(step: SelectorStep, data: SelectorJobData, progress: SelectorProgress): boolean {
  if (step === 'rootCertSync') return data.selector.rootCertSync !== undefined;
  if (step === 'waitForReplicas') return data.selector.waitForReplicas > 0;
  return progress.waitStartedAt !== undefined;
}

/**
 * Called as a step hands over to the next: records the wait at a gate (0 when it was open at
 * once) and, after the bounce step, how many pods it bounced.
 */
export function observeStepDone(
  step: SelectorStep,
  data: SelectorJobData,
  progress: SelectorProgress,
  now = Date.now(),
): void {
  const gate = GATES[step];
  if (gate !== undefined && hasGate(step, data, progress)) {
    const waited = progress.waitStartedAt === undefined ? 0 : now - progress.waitStartedAt;
    waitDuration.observe({ gate, outcome: 'passed' }, waited / 1000);
  }
  if (step === 'bounce') {
    podsBounced.inc({ namespace: data.selector.namespace }, progress.bounced?.length ?? 0);
  }
}

/** Called when a wait has run out of time, before the wait clock is cleared. */
export function observeWaitTimedOut(progress: SelectorProgress, now = Date.now()): void {
  const gate = GATES[progress.step];
  if (gate === undefined || progress.waitStartedAt === undefined) return;
  waitDuration.observe({ gate, outcome: 'timed_out' }, (now - progress.waitStartedAt) / 1000);
}

/**
 * A selector becomes runnable when its predecessor completes (the first one when it is
 * enqueued); BullMQ keeps both moments, so nothing extra has to be persisted for this.
 */
async function runnableSince(queue: MinimalQueue, job: Job<SelectorJobData>): Promise<number> {
  const { directive, generation, runKey, selectorIndex } = job.data;
  if (selectorIndex === 0) return job.timestamp;
  const previousId = selectorJobId(directive.uid, generation, runKey, selectorIndex - 1);
  const previous = await Job.fromId(queue, previousId).catch(() => undefined);
  return previous?.finishedOn ?? job.timestamp;
}

/** Records how long a selector took, from runnable to its end; best effort (metrics only). */
export async function observeSelectorEnd(
  queue: MinimalQueue,
  job: Job<SelectorJobData>,
  outcome: 'completed' | 'failed',
): Promise<void> {
  const started = await runnableSince(queue, job);
  const ended = job.finishedOn ?? Date.now();
  selectorDuration.observe({ outcome }, Math.max(0, ended - started) / 1000);
}
