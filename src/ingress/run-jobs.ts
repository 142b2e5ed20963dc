import { directiveKey, type Directive } from '../directive/types.js';
import { latestRun, type Run } from '../queue/runs.js';
import type { AppDeps } from './deps.js';
import { inRedis } from './ingest.js';
import type { JobView } from './schemas.js';

/** BullMQ states of a job that has not ended. */
const UNFINISHED = new Set(['waiting', 'waiting-children', 'delayed', 'active', 'prioritized']);

/**
 * The directive's latest run: the one recorded at acceptance, or, when none was (or it outlived
 * retention), an empty run of the current generation that has no jobs.
 */
export async function currentRun(deps: AppDeps, directive: Directive): Promise<Run> {
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
export async function jobsOf(deps: AppDeps, run: Run): Promise<JobView[]> {
  const queue = await deps.queues.queue();
  const views = await inRedis(() =>
    Promise.all(
      run.jobIds.map(async (jobId, selectorIndex): Promise<JobView | undefined> => {
        const job = await queue.getJob(jobId);
        if (job === undefined) return undefined;
        return {
          selectorIndex,
          jobId,
          state: await job.getState(),
          attemptsMade: job.attemptsMade,
          failedReason: job.failedReason ?? null,
        };
      }),
    ),
  );
  return views.filter((view): view is JobView => view !== undefined);
}

/** Whether any job of the run has not ended yet. */
export function inProgress(jobs: JobView[]): boolean {
  return jobs.some((job) => UNFINISHED.has(job.state));
}

/** `ns/name (generation g, run r)`, for messages. */
export function runName(directive: Directive, run: Run): string {
  return `${directiveKey(directive.metadata)} (generation ${run.generation}, run ${run.runKey})`;
}
