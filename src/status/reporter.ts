import type { Directive, ObjectRef } from '../directive/types.js';
import { describesRun } from '../queue/run-identity.js';
import {
  accepted,
  isFinal,
  isProgressOnly,
  transitionFor,
  type Moment,
  type RunRef,
} from './moments.js';

import { WriteLanes } from './write-lanes.js';
import type { StatusWriter, WriteOutcome } from './writer.js';

/** Progress messages are written at most this often per directive. */
export const PROGRESS_WRITE_INTERVAL_MS = 2000;

export type Target = ObjectRef & {
  uid: string;
  generation: number;
  runKey?: string;
  selectorIndex?: number;
};

/**
 * The one door from the workflow to the status: a step reports a moment, this turns it into a
 * transition (moments.ts) and writes it (StatusWriter). Progress-only moments (a batch bounced, a
 * wait's counts) are dropped when the directive was written less than 2 s ago: the next re-check
 * reports them again, so the message is late at most by that, and a busy wait costs no API budget.
 * The clock is per process; N workers write at most N messages per interval, each for its own job.
 * Reports that come while the directive's write is in flight are written together after it
 * (`write-lanes.ts`).
 */
export class StatusReporter {
  private readonly lastWrite = new Map<string, number>();
  private readonly lanes: WriteLanes;

  constructor(
    private readonly writer: StatusWriter,
    private readonly now: () => number = Date.now,
  ) {
    this.lanes = new WriteLanes(writer);
  }

  async report(
    target: Target,
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
      ? await this.lanes.write(target, transition, lastRead)
      : await this.writer.applyInOrder(
          target,
          [accepted(run.generation, run.selectorCount, run.issuedAt), transition],
          lastRead,
        );
    if (isFinal(moment)) this.lastWrite.delete(target.uid);
    else if (outcome === 'written') this.lastWrite.set(target.uid, now);
    return outcome;
  }
}
