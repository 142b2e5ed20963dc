import type { Directive } from '../directive/types.js';
import { describesRun } from '../queue/run-identity.js';
import {
  accepted,
  isFinal,
  isProgressOnly,
  transitionFor,
  type Moment,
  type RunRef,
} from './moments.js';
import type { Transition } from './projection.js';
import type { StatusWriter, WriteOutcome, WriteTarget } from './writer.js';

/** Progress messages are written at most this often per directive. */
export const PROGRESS_WRITE_INTERVAL_MS = 2000;

export type { WriteTarget as Target } from './writer.js';

/** A report waiting in its directive's lane for the write in flight to be answered. */
interface Queued {
  target: WriteTarget;
  transition: Transition;
  lastRead: Directive | undefined;
  resolve: (outcome: WriteOutcome) => void;
  reject: (error: unknown) => void;
}

/** Reports written together: of one run, and a run's end apart (it may outlive its spec). */
const runOf = ({ target, transition }: Queued): string =>
  `${target.uid} ${target.generation} ${target.runKey ?? ''} ${transition.ends ? 'end' : ''}`;

/**
 * The one door from the workflow to the status: a step reports a moment, this turns it into a
 * transition (moments.ts) and writes it (StatusWriter). Progress-only moments (a batch bounced, a
 * wait's counts) are dropped when the directive was written less than 2 s ago: the next re-check
 * reports them again, so the message is late at most by that, and a busy wait costs no API budget.
 * The clock is per process; N workers write at most N messages per interval, each for its own job.
 *
 * One status write is in flight per directive in this process (its lane): what the run's
 * selectors report meanwhile is written together once it is answered, one merge patch and one
 * Event per reason. A write that finds the lane idle goes out at once, so a chain (one selector at
 * a time) writes as before. Each report is still answered only once its transition is written: a
 * selector's pods are in `podsBounced` before it bounces anything.
 */
export class StatusReporter {
  private readonly lastWrite = new Map<string, number>();
  private readonly lanes = new Map<string, Queued[]>();

  constructor(
    private readonly writer: StatusWriter,
    private readonly now: () => number = Date.now,
  ) {}

  async report(
    target: WriteTarget,
    run: RunRef,
    moment: Moment,
    lastRead?: Directive,
  ): Promise<WriteOutcome | 'deferred'> {
    const now = this.now();
    if (isProgressOnly(moment)) {
      const last = this.lastWrite.get(target.uid);
      if (last !== undefined && now - last < PROGRESS_WRITE_INTERVAL_MS) return 'deferred';
    }
    const transition = transitionFor(run, moment, new Date(now));
    // The api marks a run PENDING after its answer; when that write failed or has not landed yet,
    // the worker's first write marks it first, so each run has its Accepted Event and
    // notification exactly once (`accepted` writes nothing over a status that describes the run).
    const outcome = describesRun(lastRead?.status, run)
      ? await this.inLane(target, transition, lastRead)
      : await this.writer.applyInOrder(
          target,
          [accepted(run.generation, run.selectorCount, run.issuedAt), transition],
          lastRead,
        );
    if (isFinal(moment)) this.lastWrite.delete(target.uid);
    else if (outcome === 'written') this.lastWrite.set(target.uid, now);
    return outcome;
  }

  private inLane(
    target: WriteTarget,
    transition: Transition,
    lastRead?: Directive,
  ): Promise<WriteOutcome> {
    return new Promise((resolve, reject) => {
      const queued = { target, transition, lastRead, resolve, reject };
      const lane = this.lanes.get(target.uid);
      if (lane !== undefined) {
        lane.push(queued);
        return;
      }
      this.lanes.set(target.uid, [queued]);
      void this.drain(target.uid);
    });
  }

  /** Writes the lane's reports, those of one run at a time, until it is empty. */
  private async drain(uid: string): Promise<void> {
    const lane = this.lanes.get(uid)!;
    // The directive this lane last wrote: fresher than any copy read before that write answered.
    let written: Directive | undefined;
    while (lane.length > 0) {
      const run = runOf(lane[0]!);
      const batch = lane.filter((queued) => runOf(queued) === run);
      lane.splice(0, lane.length, ...lane.filter((queued) => runOf(queued) !== run));
      try {
        const answer = await this.writer.applyTogether(
          batch.map(({ target, transition }) => ({ target, transition })),
          written ?? batch.at(-1)!.lastRead,
        );
        written = answer.outcome === 'written' ? answer.directive : undefined;
        batch.forEach((queued) => queued.resolve(answer.outcome));
      } catch (error) {
        written = undefined;
        batch.forEach((queued) => queued.reject(error));
      }
    }
    this.lanes.delete(uid);
  }
}
