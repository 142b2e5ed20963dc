import { DelayedError, type Job } from 'bullmq';
import { WaitTimeoutError } from '../errors.js';
import { observeStepDone } from '../metrics/workflow.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import type { Moment } from '../status/moments.js';
import type { PendingWait, StepContext } from './context.js';
import { nextTurn } from './next-turn.js';
import { nextStep, stepFunction, stepPercent } from './steps/index.js';

/**
 * Runs the job's steps from where its progress says, in the declared order: a step that is done
 * hands over to the next, a step that must wait parks the job (DelayedError), a step that finds
 * the run gone ends the job. Returns how the job ended when it did not wait.
 */
export async function runSteps(
  context: StepContext,
  job: Job<SelectorJobData>,
  token?: string,
): Promise<'done' | 'superseded' | 'directive-deleted'> {
  while (context.progress.step !== 'done') {
    const step = context.progress.step;
    const outcome = await stepFunction(step)(context);
    if ('end' in outcome) return outcome.end;
    if ('wait' in outcome) return waitLater(context, job, outcome.wait, token);
    observeStepDone(step, context.data, context.progress);
    const next = nextStep(step);
    // Written with the next step's first write: a re-run of a done step finds nothing to do.
    context.stage({ step: next, waitStartedAt: undefined });
    context.setPercent(stepPercent(next));
    context.log.info({ step: next }, 'selector step reached');
  }
  return 'done';
}

/** Time this wait has run, not counting the time the directive has been paused. */
function waited(context: StepContext, now: number): number {
  const startedAt = context.progress.waitStartedAt ?? now;
  const paused = context.progress.pausedAt === undefined ? 0 : now - context.progress.pausedAt;
  return Math.max(0, now - startedAt - paused);
}

/** What the status is told of a wait: a closed gate (unless paused, which it shows first), or a wait. */
function momentOf(wait: PendingWait, paused: boolean): Moment {
  if (wait.gate !== undefined && !paused) {
    return { kind: 'gated', gate: wait.gate.name, why: wait.gate.why, counts: wait.counts };
  }
  return {
    kind: 'waiting',
    ...(wait.status === undefined ? {} : { what: wait.status }),
    ...(wait.counts === undefined ? {} : { counts: wait.counts }),
    paused,
  };
}

/** Parks the job as delayed until the next re-check, or fails it when its wait has timed out. */
async function waitLater(
  context: StepContext,
  job: Job<SelectorJobData>,
  wait: PendingWait,
  token?: string,
): Promise<never> {
  const now = Date.now();
  // Another wait than the one the clock times (a gate closing after a readiness wait): its own clock.
  if (wait.clock !== context.progress.waitClock) {
    context.stage({ waitStartedAt: undefined, waitClock: wait.clock });
  }
  if (wait.timeoutSeconds !== undefined && waited(context, now) >= wait.timeoutSeconds * 1000) {
    throw new WaitTimeoutError(
      wait.timeoutMessage ?? `timed out after ${wait.timeoutSeconds}s waiting for ${wait.what}`,
    );
  }
  if (context.progress.waitStartedAt === undefined) {
    context.stage({ waitStartedAt: now });
    context.note(`waiting for ${wait.what}`);
  }
  if (wait.quiet !== true) {
    await context.report(momentOf(wait, context.progress.pausedAt !== undefined));
  }
  // The progress (the wait clock, what the step staged) and the move to delayed leave together:
  // one round trip. Either landing alone leaves what a crash between them would. The job's next
  // turn in its namespace goes first: the priority it is promoted at.
  await Promise.all([
    nextTurn(context, job.id),
    context.flush(),
    job.moveToDelayed(now + (wait.recheckMs ?? context.deps.settings.pollIntervalMs), token),
  ]);
  // Parked first, registered second: a wake-up can only find the job already delayed.
  if (wait.wake !== undefined) context.deps.wakeups?.park(job, wait.wake);
  throw parked();
}

/**
 * The signal that tells BullMQ the job was moved to delayed. It is never logged or shown (BullMQ
 * recognises it by class and name and records nothing), so no stack is captured for it: every
 * wait of every job throws one.
 */
function parked(): DelayedError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new DelayedError();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
