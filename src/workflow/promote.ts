import { Job, type Queue } from 'bullmq';

/**
 * Promotes the delayed jobs among `jobIds` now. A job that is not delayed (running, waiting, gone)
 * is refused by BullMQ's promote script and left alone: a promotion only ever brings a re-check
 * forward, never decides one.
 */
export async function promoteDelayed(queue: Queue, jobIds: string[]): Promise<void> {
  await Promise.all(
    jobIds.map(async (id) => {
      try {
        const job = await Job.fromId(queue, id);
        if (job !== undefined && (await job.isDelayed())) await job.promote();
      } catch {
        // Not delayed any more, or Redis busy: its own re-check still comes.
      }
    }),
  );
}

/**
 * Retries the failed jobs among `jobIds` (from the attempt they failed at, their attempts reset),
 * as the retry route does; a job in any other state is left alone.
 */
export async function retryFailed(queue: Queue, jobIds: string[]): Promise<void> {
  await Promise.all(
    jobIds.map(async (id) => {
      try {
        const job = await Job.fromId(queue, id);
        if (job !== undefined && (await job.isFailed())) {
          await job.retry('failed', { resetAttemptsMade: true });
        }
      } catch {
        // Not failed any more (retried meanwhile), or Redis busy: the retry route still can.
      }
    }),
  );
}
