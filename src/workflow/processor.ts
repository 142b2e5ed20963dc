import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import {
  BouncerError,
  NotFoundError,
  WaitTimeoutError,
  isRetryable,
  messageOf,
} from '../errors.js';
import type { Directive } from '../directive/types.js';
import { observeStepDone, observeWaitTimedOut } from '../metrics/workflow.js';
import type { SelectorJobData, SelectorProgress, SelectorStep } from '../queue/selector-job.js';
import { bouncing, failed, finished } from '../status/transitions.js';
import type { PendingWait, StepContext, StepOutcome, WorkflowDeps } from './context.js';
import { bounce } from './steps/bounce.js';
import { rootCertSync } from './steps/root-cert-sync.js';
import { select } from './steps/select.js';
import { waitForReplicas } from './steps/wait-for-replicas.js';

export type SelectorResult =
  { outcome: 'bounced'; pods: string[] } | { outcome: 'superseded' | 'directive-deleted' };

const STEPS: Record<
  Exclude<SelectorStep, 'done'>,
  (context: StepContext) => Promise<StepOutcome>
> = {
  rootCertSync,
  select,
  bounce,
  waitForReplicas,
};

const STEP_PROGRESS: Record<SelectorStep, number> = {
  rootCertSync: 5,
  select: 20,
  bounce: 40,
  waitForReplicas: 70,
  done: 100,
};

/** The directive this job works for, or why it no longer exists for this job. */
async function readDirective(
  source: Pick<WorkflowDeps['kube'], 'getDirective'>,
  data: SelectorJobData,
): Promise<Directive | 'superseded' | 'directive-deleted'> {
  try {
    const directive = await source.getDirective(data.directive);
    const { uid, generation } = directive.metadata;
    if (uid !== data.directive.uid || generation !== data.generation) return 'superseded';
    return directive;
  } catch (error) {
    if (error instanceof NotFoundError) return 'directive-deleted';
    throw error;
  }
}

/**
 * The directive this job works for, or why it no longer exists for this job. The watch cache
 * answers the common case; a cache that says "superseded" or "deleted" may just be behind (a
 * generation accepted a moment ago), so that answer is confirmed with the API server before the
 * job gives up.
 */
async function currentDirective(
  deps: WorkflowDeps,
  data: SelectorJobData,
): Promise<Directive | 'superseded' | 'directive-deleted'> {
  if (deps.directives === undefined) return readDirective(deps.kube, data);
  const cached = await readDirective(deps.directives, data);
  return typeof cached === 'string' ? readDirective(deps.kube, data) : cached;
}

/**
 * A NotFound in mid-run (typically the status write) may mean the directive was deleted or
 * replaced after a cache answered for it: ask the API server itself, and end quietly if so
 * instead of failing a chain nobody wants any more.
 */
async function endedMidRun(
  deps: WorkflowDeps,
  job: Job<SelectorJobData>,
  error: unknown,
  log: WorkflowDeps['log'],
): Promise<SelectorResult | undefined> {
  if (!(error instanceof NotFoundError)) return undefined;
  const result = await currentDirective({ ...deps, directives: undefined }, job.data).catch(
    () => undefined,
  );
  if (typeof result !== 'string') return undefined;
  log.info({ reason: result }, 'selector job ends: the directive changed mid-run');
  await job.log(`ended mid-run: ${result}`);
  return { outcome: result };
}

function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/**
 * Runs one selector job as a step machine: rootCertSync → select → bounce → waitForReplicas.
 * Each step's progress is in the job's data, so a re-run (after a crash, a retry or a delayed
 * re-check) resumes where the last run stopped without repeating an effect. Waits never hold the
 * worker: the job is moved to delayed and re-checked after POLL_INTERVAL_MS.
 */
export function createSelectorProcessor(deps: WorkflowDeps) {
  return async (job: Job<SelectorJobData>, token?: string): Promise<SelectorResult> => {
    const data = job.data;
    const log = deps.log.child({
      jobId: job.id,
      directive: `${data.directive.namespace}/${data.directive.name}`,
      selector: data.selectorIndex,
    });
    deps.wakeups?.forget(job.id);
    const directive = await currentDirective(deps, data);
    if (typeof directive === 'string') {
      log.info({ reason: directive }, 'selector job ends without bouncing');
      await job.log(`ended without bouncing: ${directive}`);
      return { outcome: directive };
    }
    const target = { ...data.directive, generation: data.generation };
    const context = makeContext(job, deps, log);
    try {
      // Before select, BOUNCING_PODS is written together with the chosen pods (select) or before
      // the first wait (waitLater): one write fewer, and none racing the api's PENDING write.
      if (context.progress.step === 'bounce' || context.progress.step === 'waitForReplicas') {
        await deps.status.apply(target, bouncing(data.generation, data.selectorIndex), directive);
      }
      await runSteps(context, job, token);
      if (data.selectorIndex === data.selectorCount - 1) {
        await deps.status.apply(
          target,
          finished(data.generation),
          deps.directives?.peek(data.directive),
        );
      }
      return { outcome: 'bounced', pods: (context.progress.chosen ?? []).map((pod) => pod.name) };
    } catch (error) {
      return onFailure(context, job, error);
    }
  };
}

/** Delayed stays delayed; a chain nobody wants ends quietly; transient retries; the rest fails. */
async function onFailure(
  context: StepContext,
  job: Job<SelectorJobData>,
  error: unknown,
): Promise<SelectorResult> {
  if (error instanceof DelayedError) throw error;
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

async function runSteps(
  context: StepContext,
  job: Job<SelectorJobData>,
  token?: string,
): Promise<void> {
  while (context.progress.step !== 'done') {
    const step = context.progress.step;
    const outcome = await STEPS[step](context);
    if ('next' in outcome) {
      observeStepDone(step, context.data, context.progress);
      await context.save({ step: outcome.next, waitStartedAt: undefined });
      await job.updateProgress(STEP_PROGRESS[outcome.next]);
      context.log.info({ step: outcome.next }, 'selector step reached');
      continue;
    }
    await waitLater(context, job, outcome.wait, token);
  }
}

/** Parks the job as delayed until the next re-check, or fails it when its wait has timed out. */
async function waitLater(
  context: StepContext,
  job: Job<SelectorJobData>,
  wait: PendingWait,
  token?: string,
): Promise<never> {
  const now = Date.now();
  const startedAt = context.progress.waitStartedAt ?? now;
  if (now - startedAt >= wait.timeoutSeconds * 1000) {
    throw new WaitTimeoutError(`timed out after ${wait.timeoutSeconds}s waiting for ${wait.what}`);
  }
  if (context.progress.step === 'rootCertSync') {
    const { data, deps } = context;
    await deps.status.apply(
      { ...data.directive, generation: data.generation },
      bouncing(data.generation, data.selectorIndex),
      deps.directives?.peek(data.directive),
    );
  }
  if (context.progress.waitStartedAt === undefined) {
    await context.save({ waitStartedAt: now });
    await context.note(`waiting for ${wait.what}`);
  }
  await job.moveToDelayed(now + context.deps.settings.pollIntervalMs, token);
  // Parked first, registered second: a wake-up can only find the job already delayed.
  if (wait.wake !== undefined) context.deps.wakeups?.park(job, wait.wake);
  throw new DelayedError();
}

/**
 * Records the failure where a person will look (status, Event, job log) and clears the wait clock,
 * so that an admin's retry starts a fresh wait from the same step instead of re-bouncing.
 */
async function failTerminally(context: StepContext, error: unknown): Promise<void> {
  const { data, deps } = context;
  const cause = messageOf(error);
  context.log.error({ err: error, step: context.progress.step }, 'selector job failed');
  if (error instanceof WaitTimeoutError) observeWaitTimedOut(context.progress);
  await context.save({ waitStartedAt: undefined });
  await context.note(`failed: ${cause}`);
  try {
    await deps.status.apply(
      { ...data.directive, generation: data.generation },
      failed(data.generation, data.selectorIndex, cause),
    );
  } catch (statusError) {
    context.log.error({ err: statusError }, 'could not write FAILED status');
  }
}

function makeContext(
  job: Job<SelectorJobData>,
  deps: WorkflowDeps,
  log: StepContext['log'],
): StepContext {
  const context: StepContext = {
    data: job.data,
    progress: { ...job.data.progress },
    deps,
    log,
    async save(change: Partial<SelectorProgress>): Promise<void> {
      context.progress = { ...context.progress, ...change };
      await job.updateData({ ...job.data, progress: context.progress });
    },
    async note(message: string): Promise<void> {
      log.info({ step: context.progress.step }, message);
      await job.log(`[${new Date().toISOString()}] ${context.progress.step}: ${message}`);
    },
  };
  return context;
}
