import { DelayedError, type Job } from 'bullmq';
import { WaitTimeoutError } from '../errors.js';
import { observeStepDone } from '../metrics/workflow.js';
import type { SelectorJobData, SelectorProgress, SelectorStep } from '../queue/selector-job.js';
import { bouncing, finished } from '../status/transitions.js';
import type {
  PendingWait,
  SelectorResult,
  StepContext,
  StepOutcome,
  WorkflowDeps,
} from './context.js';
import { assertNamespacesAllowed, currentDirective } from './directive-check.js';
import { onFailure } from './failure.js';
import { bounce } from './steps/bounce.js';
import { rootCertSync } from './steps/root-cert-sync.js';
import { select } from './steps/select.js';
import { waitForReplicas } from './steps/wait-for-replicas.js';

export type { SelectorResult } from './context.js';

const STEPS: Record<
  Exclude<SelectorStep, 'done'>,
  (context: StepContext) => Promise<StepOutcome>
> = {
  rootCertSync,
  select,
  bounce,
  waitForReplicas,
};

/** The run's key (its issuedAt in epoch ms, "0" without one), for every log line of the job. */
function runKeyOf(data: SelectorJobData & { runKey?: string }): string {
  if (data.runKey !== undefined) return data.runKey;
  const issued = data.issuedAt === undefined ? Number.NaN : Date.parse(data.issuedAt);
  return Number.isNaN(issued) ? '0' : String(issued);
}

const STEP_PROGRESS: Record<SelectorStep, number> = {
  rootCertSync: 5,
  select: 20,
  bounce: 40,
  waitForReplicas: 70,
  done: 100,
};

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
      directive: `${data.directive.namespace}/${data.directive.name}`,
      run: runKeyOf(data),
      jobId: job.id,
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
      assertNamespacesAllowed(deps, data, directive);
      // Before select, BOUNCING_PODS is written together with the chosen pods (select) or before
      // the first wait (waitLater): one write fewer, and none racing the api's PENDING write.
      if (context.progress.step === 'bounce' || context.progress.step === 'waitForReplicas') {
        await deps.status.apply(
          target,
          bouncing(data.generation, data.selectorIndex, data.issuedAt),
          directive,
        );
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
      bouncing(data.generation, data.selectorIndex, data.issuedAt),
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
