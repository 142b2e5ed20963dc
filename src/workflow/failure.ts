import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { AbortedError, BouncerError, WaitTimeoutError, isRetryable, messageOf } from '../errors.js';
import { observeWaitTimedOut } from '../metrics/workflow.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import type { SelectorResult, StepContext } from './context.js';
import { endedMidRun } from './directive-check.js';

function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/** Delayed stays delayed; a chain nobody wants ends quietly; transient retries; the rest fails. */
export async function onFailure(
  context: StepContext,
  job: Job<SelectorJobData>,
  error: unknown,
): Promise<SelectorResult> {
  if (error instanceof DelayedError) throw error;
  // What the run staged (a batch's bounced pods) saves the re-run a look at them; best effort.
  await context.flush().catch(() => undefined);
  const ended = await endedMidRun(context.deps, job, error, context.log);
  if (ended !== undefined) return ended;
  if (!(error instanceof BouncerError)) {
    // Not a verdict on the directive: Redis or BullMQ trouble (a lock lost in a failover, a
    // dropped connection). Handed back to BullMQ as is: the job is retried or, with its lock gone,
    // taken over by the stalled-job check. The worker's 'failed' handler reports a final failure.
    context.log.warn({ err: error, attempt: job.attemptsMade + 1 }, 'selector job interrupted');
    throw error;
  }
  if (isRetryable(error) && !isLastAttempt(job)) {
    context.log.warn(
      { err: error, attempt: job.attemptsMade + 1 },
      'transient failure; the job will be retried',
    );
    throw error;
  }
  await failTerminally(context, error);
  throw new UnrecoverableError(messageOf(error));
}

/**
 * Records the failure where a person will look (status, Event, job log) and clears the wait clock,
 * so that an admin's retry starts a fresh wait from the same step instead of re-bouncing.
 */
async function failTerminally(context: StepContext, error: unknown): Promise<void> {
  const cause = messageOf(error);
  context.log.error({ err: error, step: context.progress.step }, 'selector job failed');
  if (error instanceof WaitTimeoutError) observeWaitTimedOut(context.progress);
  context.note(`failed: ${cause}`);
  await context.save({ waitStartedAt: undefined });
  try {
    await context.report(
      error instanceof AbortedError ? { kind: 'aborted' } : { kind: 'failed', cause },
    );
  } catch (statusError) {
    context.log.error({ err: statusError }, 'could not write FAILED status');
  }
}
