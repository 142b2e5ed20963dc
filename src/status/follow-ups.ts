import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Logger } from '../logger.js';

/** What a follow-up is about: its failure message, its log context, its coalescing key. */
export interface FollowUpLabel {
  failure: string;
  context?: object;
  key?: string;
}

interface FollowUp {
  /** When it was queued (epoch ms): it waits for a quiet moment at most `maxDelayMs` from then. */
  queuedAt: number;
  log: Logger;
  about: FollowUpLabel;
  work: () => Promise<unknown>;
}

export interface FollowUpOptions {
  /** How many run at once (default 4): they run only while answers leave the process idle. */
  concurrency?: number;
  /** How many may wait; beyond it the oldest is dropped (the worker writes the status anyway). */
  maxWaiting?: number;
  /**
   * True while the process is busy answering: follow-ups then wait (default: the event loop was
   * more than 90 % busy over the last 50 ms or more).
   */
  busy?: () => boolean;
  /** The longest a follow-up waits for a quiet moment before it runs anyway (default 10 s). */
  maxDelayMs?: number;
}

const RECHECK_MS = 50;

/** Busy when the event loop spent more than 90 % of the time since the last look working. */
function eventLoopBusy(): () => boolean {
  let since: EventLoopUtilization = performance.eventLoopUtilization();
  let sinceAt = performance.now();
  let verdict = false;
  return () => {
    const now = performance.now();
    if (now - sinceAt < RECHECK_MS) return verdict;
    const current = performance.eventLoopUtilization();
    verdict = performance.eventLoopUtilization(current, since).utilization > 0.9;
    since = current;
    sinceAt = now;
    return verdict;
  };
}

/**
 * Work that follows an answer rather than delays it (the PENDING status and its Event): started
 * once the answer is on its way, a few at a time, and held while the process is busy
 * answering (up to `maxDelayMs`) so that a burst of events is answered before its status writes
 * compete with it; coalesced by key (a later write for the same directive replaces one that has
 * not started), its failure logged, and tracked so that closing the app waits for what is in
 * flight instead of cutting it off.
 */
export class FollowUps {
  private readonly waiting = new Map<string | symbol, FollowUp>();
  private running = 0;
  private idle: (() => void)[] = [];
  private readonly limits: Required<Omit<FollowUpOptions, 'busy'>>;
  private readonly busy: (() => boolean)[];
  private recheck: NodeJS.Timeout | undefined;
  private pumpScheduled = false;
  private draining = false;

  constructor({ busy, ...limits }: FollowUpOptions = {}) {
    this.limits = { concurrency: 4, maxWaiting: 10_000, maxDelayMs: 10_000, ...limits };
    this.busy = [busy ?? eventLoopBusy()];
  }

  /**
   * Queues `work` to run after the current turn of the event loop (the answer is sent first).
   * With a `key`, it replaces the queued work of the same key that has not started yet.
   */
  start(log: Logger, about: FollowUpLabel, work: () => Promise<unknown>): void {
    const slot = about.key ?? Symbol('follow-up');
    this.waiting.delete(slot);
    this.waiting.set(slot, { queuedAt: Date.now(), log, about, work });
    this.dropOverflow(log);
    // One look per turn of the event loop, however many answers it sent.
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Follow-ups also wait while `probe` says the process is busy (up to `maxDelayMs`). */
  holdWhile(probe: () => boolean): void {
    this.busy.push(probe);
  }

  /** How many are queued or running. */
  get size(): number {
    return this.waiting.size + this.running;
  }

  /**
   * Resolves once every follow-up started so far (and any they start) has ended; until then what
   * waits runs at once, busy or not (the app is closing, or a caller needs the writes made).
   */
  async drain(): Promise<void> {
    if (this.size === 0) return;
    // Registered before anything is started, so that work ending at once still resolves it.
    const idle = new Promise<void>((resolve) => this.idle.push(resolve));
    this.draining = true;
    this.pump();
    await idle;
  }

  /**
   * For the app's close: what has not started is dropped (one line says how many; the worker
   * writes each run's PENDING as it starts), and what is running is waited for. A write started
   * while the process shuts down would race the closing of its Kubernetes client.
   */
  async close(log: Logger): Promise<void> {
    const dropped = this.waiting.size;
    this.waiting.clear();
    clearTimeout(this.recheck);
    this.recheck = undefined;
    if (dropped > 0) {
      log.info(
        { dropped },
        'PENDING writes not made before shutdown; the worker writes them as it starts',
      );
    }
    if (this.running === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private dropOverflow(log: Logger): void {
    for (const [slot, dropped] of this.waiting) {
      if (this.waiting.size <= this.limits.maxWaiting) break;
      this.waiting.delete(slot);
      log.warn(
        { ...dropped.about.context, waiting: this.limits.maxWaiting },
        `${dropped.about.failure}: too many writes waiting; the worker writes the status as it starts`,
      );
    }
  }

  private pump(): void {
    while (this.running < this.limits.concurrency) {
      const next = this.waiting.entries().next();
      if (next.done === true) break;
      const [slot, followUp] = next.value;
      if (this.shouldHold(followUp)) {
        this.recheck ??= setTimeout(() => {
          this.recheck = undefined;
          this.pump();
        }, RECHECK_MS);
        break;
      }
      this.waiting.delete(slot);
      this.running += 1;
      void this.run(followUp);
    }
    if (this.size === 0) {
      this.draining = false;
      for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** The oldest waiting follow-up holds while answers keep the process busy, up to its limit. */
  private shouldHold(oldest: FollowUp): boolean {
    if (this.draining || Date.now() - oldest.queuedAt >= this.limits.maxDelayMs) return false;
    return this.busy.some((probe) => probe());
  }

  private async run({ log, about, work }: FollowUp): Promise<void> {
    try {
      await work();
    } catch (error) {
      log.warn({ err: error, ...about.context }, about.failure);
    } finally {
      this.running -= 1;
      this.pump();
    }
  }
}
