import { directiveKey, type Directive } from '../directive/types.js';
import { selectorJobId } from '../queue/names.js';
import { latestRun, type RunRecord } from '../queue/runs.js';
import type { AppDeps } from './deps.js';
import { inRedis } from './ingest.js';
import type { JobView } from './schemas.js';

/** BullMQ states of a job that has not ended. */
const UNFINISHED = new Set(['waiting', 'waiting-children', 'delayed', 'active', 'prioritized']);

/**
 * The directive's latest run: the one recorded at acceptance, or, for a generation accepted
 * before runs were recorded, the generation's run without an issuance.
 */
export async function currentRun(deps: AppDeps, directive: Directive): Promise<RunRecord> {
  const { uid, generation } = directive.metadata;
  const recorded = await inRedis(() => latestRun(deps.redis, deps.config.queuePrefix, uid));
  if (recorded !== undefined) return recorded;
  return {
    uid,
    generation,
    runKey: '0',
    jobIds: directive.spec.podsToBounce.map((_, index) => selectorJobId(uid, generation, index)),
    acceptedAt: '',
  };
}

/** The run's selector jobs that exist in the queue, in selector order. */
export async function jobsOf(deps: AppDeps, run: RunRecord): Promise<JobView[]> {
  const views = await inRedis(() =>
    Promise.all(
      run.jobIds.map(async (jobId, selectorIndex): Promise<JobView | undefined> => {
        const job = await deps.queue.getJob(jobId);
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
export function runName(directive: Directive, run: RunRecord): string {
  return `${directiveKey(directive.metadata)} (generation ${run.generation}, run ${run.runKey})`;
}
