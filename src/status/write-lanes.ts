import type { Directive } from '../directive/types.js';
import type { Transition } from './projection.js';
import type { StatusWriter, WriteOutcome, WriteTarget } from './writer.js';

interface Queued {
  target: WriteTarget;
  transition: Transition;
  lastRead: Directive | undefined;
  resolve: (outcome: WriteOutcome) => void;
  reject: (error: unknown) => void;
}

const runOf = (target: WriteTarget): string =>
  `${target.uid} ${target.generation} ${target.runKey ?? ''}`;

/**
 * One status write in flight per directive in this process: what the run's selectors report
 * meanwhile is written together once it is answered (`StatusWriter.applyTogether`), one merge
 * patch and one Event per reason. A write that finds the lane idle goes out at once, so a chain
 * (one selector at a time) writes as before; with many selectors in progress, the writes they
 * would have queued for (or conflicted over) on the one object become one. Each report is still
 * answered only once its transition is written: a selector's pods are in `podsBounced` before it
 * bounces anything.
 */
export class WriteLanes {
  private readonly lanes = new Map<string, Queued[]>();

  constructor(private readonly writer: StatusWriter) {}

  write(target: WriteTarget, transition: Transition, lastRead?: Directive): Promise<WriteOutcome> {
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
      const run = runOf(lane[0]!.target);
      const batch = lane.filter((queued) => runOf(queued.target) === run);
      lane.splice(0, lane.length, ...lane.filter((queued) => runOf(queued.target) !== run));
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
