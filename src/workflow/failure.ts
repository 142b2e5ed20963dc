import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import {
  AbortedError,
  BouncerError,
  StatusRefusedError,
  WaitTimeoutError,
  isRetryable,
  messageOf,
} from '../errors.js';
import { observeWaitTimedOut } from '../metrics/workflow.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import { selectorBackoff } from '../queue/selector-backoff.js';
import { StatusConflictError } from '../status/writer.js';
import type { Moment } from '../status/moments.js';
import type { SelectorResult, StepContext } from './context.js';
import { endedMidRun } from './directive-check.js';
import { endingOf, wakeHalted } from './halt.js';
import { nextTurn } from './next-turn.js';

function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/**
 * Attempts made before a status write that kept conflicting is run again: its delay is the
 * worker's backoff after that many (about 2 to 4 s), jittered.
 */
const CONFLICT_RERUN_ATTEMPTS = 3;

/** How soon a job that met a halt being withdrawn looks again (the withdrawal promotes it first). */
const LIFTED_RERUN_MS = 1000;

/**
 * Delayed stays delayed; a chain nobody wants ends quietly; a status write that kept conflicting,
 * or a stop being lifted, runs the step again later; transient retries; the rest fails.
 */
export async function onFailure(
  context: StepContext,
  job: Job<SelectorJobData>,
  error: unknown,
  token?: string,
): Promise<SelectorResult> {
  if (error instanceof DelayedError) throw error;
  // What the run staged (a batch's bounced pods) saves the re-run a look at them; best effort.
  await context.flush().catch(() => undefined);
  const ended = await endedMidRun(context.deps, job, error, context.log);
  if (ended !== undefined) return ended;
  if (error instanceof StatusConflictError) {
    context.log.warn({ err: error }, 'status write kept conflicting; the step runs again later');
    return rerunLater(context, job, selectorBackoff(CONFLICT_RERUN_ATTEMPTS), token);
  }
  if (error instanceof AbortedError && (await context.deps.aborts?.isLifted(context.data))) {
    // Retried at once with the selector that halted the run (or the stop withdrawn meanwhile):
    // not a failure, the halt's job withdraws it when it begins, or halts the run again.
    context.log.info('the run is being resumed; the job looks again later');
    return rerunLater(context, job, LIFTED_RERUN_MS, token);
  }
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
  const unwritten = await failTerminally(context, error, job.processedOn);
  if (unwritten !== undefined) throw new FailureUnwritten(messageOf(error), unwritten);
  throw new UnrecoverableError(messageOf(error));
}

/**
 * Not a verdict on the directive: other writers of its status kept winning (DESIGN §4: a 409
 * means re-read and retry), or the run's stop is being lifted. No attempt is used up: the job runs
 * again from its persisted progress after `delayMs`, as a wait's re-check does.
 */
async function rerunLater(
  context: StepContext,
  job: Job<SelectorJobData>,
  delayMs: number,
  token: string | undefined,
): Promise<never> {
  await Promise.all([nextTurn(context, job.id), job.moveToDelayed(Date.now() + delayMs, token)]);
  throw new DelayedError();
}

/**
 * A terminal failure whose FAILED the processor could not write (its writes kept conflicting, or
 * the API server was unreachable): the job fails all the same, and the worker's 'failed' handler
 * writes `moment` once more after it (`worker.ts`), when the writers it collided with are done.
 */
export class FailureUnwritten extends UnrecoverableError {
  constructor(
    message: string,
    readonly moment: Moment,
  ) {
    super(message);
    this.name = 'UnrecoverableError';
  }
}

/**
 * Records the failure where a person will look (status, Event, job log) and clears the wait clock,
 * so that an admin's retry starts a fresh wait from the same step instead of re-bouncing. Answers
 * the moment the status could not be told, if any.
 */
async function failTerminally(
  context: StepContext,
  error: unknown,
  attempt: number | undefined,
): Promise<Moment | undefined> {
  const cause = messageOf(error);
  context.log.error({ err: error, step: context.progress.step }, 'selector job failed');
  if (error instanceof WaitTimeoutError) observeWaitTimedOut(context.progress);
  context.note(`failed: ${cause}`);
  await context.save({ waitStartedAt: undefined });
  let halting = false;
  let unwritten: Moment | undefined;
  try {
    const moment = await endingOf(context, error, attempt);
    halting = moment.kind === 'failed' && moment.selector === context.data.selectorIndex;
    unwritten = moment;
    await reportEnding(context, moment);
    unwritten = undefined;
  } catch (statusError) {
    context.log.error({ err: statusError }, 'could not write FAILED status');
  }
  // The first failure of a run it halted: the selectors parked meanwhile are told now, whether or
  // not the status could be written.
  if (halting) await wakeHalted(context.deps, context.data).catch(() => undefined);
  return unwritten;
}

/**
 * Reports the run's ending. A FAILED status the API server refuses (its cause quotes what did not
 * fit the CRD as installed, a refused status among them) is written again with a cause of a few
 * fixed words, so that the run ends FAILED rather than staying BOUNCING_PODS; the whole cause is
 * in the job's failure and the log.
 */
async function reportEnding(context: StepContext, moment: Moment): Promise<void> {
  try {
    await context.report(moment);
  } catch (error) {
    if (!(error instanceof StatusRefusedError) || moment.kind !== 'failed') throw error;
    context.log.warn({ err: error }, 'FAILED status refused; written with a shorter cause');
    await context.report({ ...moment, cause: StatusRefusedError.SAYS });
  }
}
