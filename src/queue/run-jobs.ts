import { directiveKey, type Directive } from '../directive/types.js';
import type { ApiQueues } from './api-queues.js';
import { inRedis, type DurableDeps } from './durable.js';
import { latestRun, type Run } from './runs.js';

/** What the run's reads use: the producer connection and the queue. */
type RunReads = Pick<DurableDeps, 'config' | 'redis'> & { queues: Pick<ApiQueues, 'queue'> };

/** A selector job of a run, as the directive routes show it. */
export interface JobView {
  selectorIndex: number;
  jobId: string;
  state: string;
  attemptsMade: number;
  failedReason: string | null;
}

/** BullMQ states of a job that has not ended, as the routes tell them (`stateOf`). */
const UNFINISHED = new Set(['waiting', 'waiting-children', 'delayed', 'active']);

/**
 * A job's BullMQ state in DESIGN §3's words: a selector job queued with a priority (its
 * namespace's turn, namespace-turns.ts) is `prioritized` to BullMQ, and waiting all the same.
 */
export function stateOf(bullmqState: string): string {
  return bullmqState === 'prioritized' ? 'waiting' : bullmqState;
}

/**
 * The directive's latest run: the one recorded at acceptance, or, when none was (or it outlived
 * retention), an empty run of the current generation that has no jobs.
 */
export async function currentRun(deps: RunReads, directive: Directive): Promise<Run> {
  const { uid, generation } = directive.metadata;
  const recorded = await inRedis(() => latestRun(deps.redis, deps.config.queuePrefix, uid));
  if (recorded !== undefined) return recorded;
  return {
    uid,
    generation,
    runKey: '0',
    jobIds: [],
    acceptedAt: '',
  };
}

/** The run's selector jobs that exist in the queue, in selector order. */
export async function jobsOf(deps: RunReads, run: Run): Promise<JobView[]> {
  const queue = await deps.queues.queue();
  const views = await inRedis(() =>
    Promise.all(
      run.jobIds.map(async (jobId, selectorIndex): Promise<JobView | undefined> => {
        const job = await queue.getJob(jobId);
        if (job === undefined) return undefined;
        return {
          selectorIndex,
          jobId,
          state: stateOf(await job.getState()),
          attemptsMade: job.attemptsMade,
          failedReason: job.failedReason ?? null,
        };
      }),
    ),
  );
  return views.filter((view): view is JobView => view !== undefined);
}

/**
 * Whether the run is still going: a job of it has not ended, and none has failed. The chain
 * stops at a failed job: the later selectors' jobs stay in `waiting-children` (so that a retry of
 * the failed one resumes the chain) but none of them runs unless it is retried. A run with a
 * failed job ended FAILED, and every route sees it so: abort answers 409, GET says
 * `inProgress: false`.
 */
export function inProgress(jobs: JobView[]): boolean {
  if (jobs.some((job) => job.state === 'failed')) return false;
  return jobs.some((job) => UNFINISHED.has(job.state));
}

/** `ns/name (generation g, run r)`, for messages. */
export function runName(directive: Directive, run: Run): string {
  return `${directiveKey(directive.metadata)} (generation ${run.generation}, run ${run.runKey})`;
}
