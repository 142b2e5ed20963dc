import type { Queue } from 'bullmq';
import type { Logger } from '../logger.js';

/**
 * Failed jobs removed per clean call. Each takes the later selectors of its run with it (up to
 * MAX_SELECTORS jobs), so a call stays a short script even for the longest chains.
 */
const BATCH = 10;
const HOUR_MS = 3600_000;

/**
 * Removes the failed selector jobs that ended before `before` (epoch ms), each together with the
 * later selectors of its run that wait on it in `waiting-children`; answers how many failed jobs
 * went.
 *
 * Why `Queue.clean` and not `removeOnFail: {age}`: a failed job keeps its parent (the next
 * selector) in `waiting-children`, which is what lets a retry of it resume the chain. BullMQ's
 * removal by age takes the failed job out of its parent's dependencies and, the parent having none
 * left, moves it to `wait`: the next selector of a run that failed RETENTION_DAYS ago would start.
 * `clean` removes the failed job "hard" instead: a parent left without pending children is removed
 * with it, and so on up the chain, and none of them ever runs.
 */
export async function removeFailedRuns(
  queue: Pick<Queue, 'clean'>,
  before: number,
): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = await queue.clean(Date.now() - before, BATCH, 'failed');
    removed += ids.length;
    if (ids.length < BATCH) return removed;
  }
}

/**
 * The worker's sweep of failed runs: at start and every hour, the failed jobs older than the
 * retention period go, with the rest of their runs (`removeFailedRuns`). So a failed run's jobs
 * stay in Redis for RETENTION_DAYS, plus at most an hour while a worker runs, and no longer.
 * Several workers may sweep at once: each clean call is one atomic script.
 */
export class FailedRunSweeper {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly queue: Pick<Queue, 'clean'>,
    private readonly retentionMs: number,
    private readonly log: Logger,
    private readonly intervalMs = HOUR_MS,
  ) {}

  start(): void {
    void this.sweepQuietly();
    this.timer = setInterval(() => void this.sweepQuietly(), this.intervalMs);
    this.timer.unref();
  }

  /** Removes what has outlived the retention period at `now` (epoch ms); how many failed jobs. */
  sweep(now = Date.now()): Promise<number> {
    return removeFailedRuns(this.queue, now - this.retentionMs);
  }

  private async sweepQuietly(): Promise<void> {
    try {
      const removed = await this.sweep();
      if (removed > 0) this.log.info({ removed }, 'failed runs past their retention removed');
    } catch (error) {
      // A Redis outage is reported by the connection's owner; the next sweep tries again.
      if (!this.closed) this.log.debug({ err: error }, 'could not remove expired failed runs');
    }
  }

  /** Stops the sweeps; one in flight ends with the connection. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }
}
