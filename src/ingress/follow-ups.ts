import type { Logger } from '../logger.js';

interface FollowUp {
  log: Logger;
  failure: string;
  context: object;
  work: () => Promise<unknown>;
}

/** What a follow-up is about: its failure message, its log context, its coalescing key. */
export interface FollowUpLabel {
  failure: string;
  context?: object;
  key?: string;
}

export interface FollowUpOptions {
  /** How many run at once (default 1): answers come first, these trail them. */
  concurrency?: number;
  /** How many may wait; beyond it the oldest is dropped (the worker writes the status anyway). */
  maxWaiting?: number;
}

/**
 * Work that follows an answer rather than delays it (the PENDING status and its Event): started
 * once the answer is on its way, one at a time by default so that a burst of events is answered before
 * its status writes compete with it, coalesced by key (a later write for the same directive
 * replaces one that has not started), its failure logged, and tracked so that closing the app
 * waits for what is still queued or in flight instead of cutting it off.
 */
export class FollowUps {
  private readonly waiting = new Map<string | symbol, FollowUp>();
  private running = 0;
  private idle: (() => void)[] = [];
  private readonly concurrency: number;
  private readonly maxWaiting: number;

  constructor(options: FollowUpOptions = {}) {
    this.concurrency = options.concurrency ?? 1;
    this.maxWaiting = options.maxWaiting ?? 10_000;
  }

  /**
   * Queues `work` to run after the current turn of the event loop (the answer is sent first).
   * With a `key`, it replaces the queued work of the same key that has not started yet.
   */
  start(log: Logger, about: FollowUpLabel, work: () => Promise<unknown>): void {
    const { failure, context = {}, key } = about;
    const slot = key ?? Symbol('follow-up');
    this.waiting.delete(slot);
    this.waiting.set(slot, { log, failure, context, work });
    this.dropOverflow(log);
    setImmediate(() => this.pump());
  }

  /** How many are queued or running. */
  get size(): number {
    return this.waiting.size + this.running;
  }

  /** Resolves once every follow-up started so far (and any they start) has ended. */
  async drain(): Promise<void> {
    if (this.size === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private dropOverflow(log: Logger): void {
    for (const [slot, dropped] of this.waiting) {
      if (this.waiting.size <= this.maxWaiting) break;
      this.waiting.delete(slot);
      log.warn(
        { ...dropped.context, waiting: this.maxWaiting },
        `${dropped.failure}: too many writes waiting; the worker writes the status as it starts`,
      );
    }
  }

  private pump(): void {
    while (this.running < this.concurrency) {
      const next = this.waiting.entries().next();
      if (next.done === true) break;
      const [slot, followUp] = next.value;
      this.waiting.delete(slot);
      this.running += 1;
      void this.run(followUp);
    }
    if (this.size === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  private async run({ log, failure, context, work }: FollowUp): Promise<void> {
    try {
      await work();
    } catch (error) {
      log.warn({ err: error, ...context }, failure);
    } finally {
      this.running -= 1;
      this.pump();
    }
  }
}
