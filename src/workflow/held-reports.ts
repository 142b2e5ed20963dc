import { isProvisional, type Moment } from '../status/moments.js';
import type { StepContext } from './context.js';

type Outcome = Awaited<ReturnType<StepContext['report']>>;

/**
 * A job's reports on their way to the status. A provisional moment (a batch sent) is held until
 * the job says what comes next: a wait or a transition says more and replaces it, so the pair
 * costs one write; another batch sent at once lets the newer count through (rate-limited as any
 * progress), so back-to-back batches still show; the job's end writes what is still held.
 */
export class HeldReports {
  private held: Moment | undefined;

  constructor(private readonly send: (moment: Moment) => Promise<Outcome>) {}

  report(moment: Moment): Promise<Outcome> {
    if (isProvisional(moment) && this.held === undefined) {
      this.held = moment;
      return Promise.resolve('deferred');
    }
    this.held = undefined;
    return this.send(moment);
  }

  /** Writes the moment still held, if any: nothing came after it in this run of the job. */
  async settle(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (held !== undefined) await this.send(held);
  }
}
