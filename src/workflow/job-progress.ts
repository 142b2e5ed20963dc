import type { Job } from 'bullmq';
import type { SelectorJobData, SelectorProgress } from '../queue/selector-job.js';

/**
 * A job's progress as one run of it changes it, and the writes that persist it. Each write to
 * Redis is a round trip that costs the worker far more CPU than the command itself, so changes
 * that precede no effect are staged and leave with the next write: `save` persists at once (what
 * must be recorded before an effect: the in-flight pods before their evictions), `stage` only in
 * memory, and `flush` writes everything staged at once (the data, the log lines as one entry, the
 * dashboard's percentage, as parallel commands) before the job parks, ends or fails.
 *
 * A staged change lost with a crash costs only work the re-run can redo: a batch's `bounced`
 * after its evictions is recovered from its in-flight record (each pod read once), a step
 * transition is re-run (the step finds its work done), a log line is missing.
 */
export class JobProgress {
  private dirty = false;
  private readonly lines: string[] = [];
  private percent: number | undefined;

  constructor(
    private readonly job: Job<SelectorJobData>,
    public current: SelectorProgress,
  ) {}

  /** Changes the progress in memory; the next `save` or `flush` writes it. */
  stage(change: Partial<SelectorProgress>): void {
    this.current = { ...this.current, ...change };
    this.dirty = true;
  }

  /** Changes the progress and writes it (with anything staged) before resolving. */
  async save(change: Partial<SelectorProgress>): Promise<void> {
    this.stage(change);
    await this.flush();
  }

  /** A line for the job's log (the dashboard's), written with the next write. */
  log(line: string): void {
    this.lines.push(line);
  }

  /** The dashboard's percentage, written with the next write. */
  setPercent(percent: number): void {
    this.percent = percent;
  }

  /** Writes whatever is staged: one round of parallel commands, nothing when nothing changed. */
  async flush(): Promise<void> {
    const writes: Promise<unknown>[] = [];
    if (this.dirty) {
      this.dirty = false;
      writes.push(this.job.updateData({ ...this.job.data, progress: this.current }));
    }
    // One log entry per write, its lines joined: the dashboard shows an entry's lines one under
    // the other (its log view keeps line breaks), and each entry is a script run of its own.
    if (this.lines.length > 0) writes.push(this.job.log(this.lines.splice(0).join('\n')));
    if (this.percent !== undefined) {
      writes.push(this.job.updateProgress(this.percent));
      this.percent = undefined;
    }
    await Promise.all(writes);
  }
}
