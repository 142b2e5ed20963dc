import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { inRequestFlow } from '../kube/request-flow.js';
import { observeSelectorEnd } from '../metrics/workflow.js';
import { QUEUE_NAME } from '../queue/names.js';
import { queueErrorListener } from '../queue/redis-watch.js';
import { selectorBackoff } from '../queue/selector-backoff.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import type { WorkflowDeps } from './context.js';
import { FailureUnwritten } from './failure.js';
import { haltingMoment, wakeHalted } from './halt.js';
import {
  createSelectorProcessor,
  statusRunOf,
  statusTargetOf,
  type SelectorResult,
} from './processor.js';

export interface WorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency: number;
  /** A killed worker's job is picked up by another run after about this long. */
  lockMs: number;
}

/**
 * Starts the worker that runs selector jobs. Waiting jobs are delayed, not held, so
 * `concurrency` bounds only the jobs doing API work at one moment.
 */
export function startWorker(
  deps: WorkflowDeps,
  options: WorkerOptions,
): Worker<SelectorJobData, SelectorResult> {
  const processor = createSelectorProcessor(deps);
  const worker = new Worker<SelectorJobData, SelectorResult>(
    QUEUE_NAME,
    // A job's API requests wait in its directive namespace's own queue of the rate limiter.
    (job, token) => inFlowOf(job, () => processor(job, token)),
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockMs,
      stalledInterval: Math.max(500, Math.floor(options.lockMs / 2)),
      // Steps are idempotent, so a job whose worker died is safe to run again several times.
      maxStalledCount: 5,
      // BullMQ calls it for the selector jobs' own backoff type, never for one of its built-in types.
      settings: { backoffStrategy: (attemptsMade: number) => selectorBackoff(attemptsMade) },
    },
  );
  // A lost Redis is reported once by the connection's owner; its retries stay at debug.
  worker.on('error', queueErrorListener(deps.log, 'worker'));
  worker.on('completed', (job, result) => {
    if (result.outcome === 'bounced') void observeSelectorEnd(worker, job, 'completed');
  });
  worker.on('failed', (job) => {
    // finishedOn is set only when the failure is final (no attempt left, or unrecoverable).
    if (job?.finishedOn !== undefined) void observeSelectorEnd(worker, job, 'failed');
  });
  worker.on('failed', (job, error) => {
    if (job !== undefined) void inFlowOf(job, () => reportUnhandledFailure(deps, job, error));
  });
  return worker;
}

/** Runs `work` in the request flow of the job's directive: its namespace (kube/request-flow.ts). */
function inFlowOf<T>(job: Job<SelectorJobData>, work: () => T): T {
  return inRequestFlow(job.data.directive.namespace, work);
}

/**
 * The processor writes FAILED itself for every failure it sees; one it could not write, it hands
 * over here (FailureUnwritten). A job can also fail without the processor running to the end:
 * BullMQ gave up on it (its worker died too often: the failure deferred to its next start, an
 * UnrecoverableError the processor never saw), or Redis trouble outlasted its attempts. This
 * makes sure the directive says so, as the processor would: with several selectors in progress
 * the run is halted, and a halt already there keeps its cause.
 */
async function reportUnhandledFailure(
  deps: WorkflowDeps,
  job: Job<SelectorJobData>,
  error: Error,
): Promise<void> {
  const state = await job.getState().catch(() => 'unknown');
  const unwritten = error instanceof FailureUnwritten ? error.moment : undefined;
  const processorsOwn =
    unwritten === undefined &&
    error.name === 'UnrecoverableError' &&
    job.deferredFailure === undefined;
  if (state !== 'failed' || processorsOwn) return;
  const data = job.data;
  try {
    const moment = unwritten ?? (await haltingMoment(deps, data, error, job.processedOn));
    await deps.status.report(statusTargetOf(data), statusRunOf(data), moment);
    const halting = moment.kind === 'failed' && moment.selector === data.selectorIndex;
    if (unwritten === undefined && halting) await wakeHalted(deps, data);
  } catch (statusError) {
    deps.log.error(
      {
        err: statusError,
        directive: `${data.directive.namespace}/${data.directive.name}`,
        jobId: job.id,
      },
      'could not write FAILED status',
    );
  }
}
