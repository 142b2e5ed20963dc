import type { Logger } from '../logger.js';

/**
 * Work that follows an answer rather than delays it (the PENDING status and its Event): started
 * once the answer is on its way, its failure logged, and tracked so that closing the app waits
 * for what is still in flight instead of cutting it off.
 */
export class FollowUps {
  private readonly inFlight = new Set<Promise<void>>();

  /** Runs `work` after the current turn of the event loop (the answer is sent first). */
  start(log: Logger, failure: string, context: object, work: () => Promise<unknown>): void {
    const done = new Promise<void>((resolve) => setImmediate(resolve)).then(work).then(
      () => undefined,
      (error: unknown) => log.warn({ err: error, ...context }, failure),
    );
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  /** How many are still running. */
  get size(): number {
    return this.inFlight.size;
  }

  /** Resolves once every follow-up started so far (and any they start) has ended. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
