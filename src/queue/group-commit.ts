import { runFor, type EnqueueResult } from './enqueue.js';
import { runKeyOf } from './run-identity.js';
import { commit, type EnqueueRequest, type GroupCommitDeps, type Waiting } from './batch-commit.js';

export type { EnqueueRequest, GroupCommitDeps } from './batch-commit.js';

/** Runs per commit: the flows of one batch go out in one MULTI, whose size this bounds. */
const MAX_BATCH = 128;

/**
 * Commits in flight at once: while one waits for Redis, the next batch's claims are already on
 * the wire, so Redis is not left idle between batches. Each is as independent as a commit of
 * another api replica (a run claimed by one and seen by the next is re-added, a no-op).
 */
const MAX_IN_FLIGHT = 2;

/**
 * A commit is three round trips in a row: under a burst, events waited on two commits while the
 * process sat partly idle. A backlog of this many events starts another commit, up to
 * MAX_IN_FLIGHT_BACKLOGGED, so that the process and Redis both stay busy; events that trickle in
 * still wait and share a commit.
 */
const BACKLOG = 8;
const MAX_IN_FLIGHT_BACKLOGGED = 6;

/**
 * Enqueues runs by group commit: the events that arrive while commits are in flight (or within
 * the same turn of the event loop) are decided and written together, in three Redis round trips
 * per batch instead of several per event — one claim script for the batch, one MULTI of flows
 * (`FlowProducer.addBulk`), one confirmation script with the replica check. Each claim is still
 * its own decision, taken in arrival order (the script takes them all at once, atomically). A
 * batch is committed whole or fails whole: then the claims it made are released and every event
 * of it gets the error (a 503 the sender retries; deterministic job ids make the retry add nothing
 * twice).
 */
export class GroupCommit {
  private waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly deps: GroupCommitDeps) {}

  /** True while a commit is in flight or events wait for one: a burst of new events is on. */
  get busy(): boolean {
    return this.inFlight > 0 || this.waiting.length > 0;
  }

  /** The run an event asks for: new, or the run that already covers it (DESIGN §2 *Runs*). */
  enqueue(request: EnqueueRequest): Promise<EnqueueResult> {
    // A repeat is recalled by the run's identity alone; its job ids and times are built on a miss.
    const recent = this.deps.recent;
    if (recent !== undefined) {
      const { uid, generation } = request.directive.metadata;
      const ref = { uid, generation, runKey: runKeyOf(request.issuedAt) };
      const known = recent.recall(this.deps.prefix, ref);
      if (known !== undefined)
        return Promise.resolve({ run: known, duplicate: true, recalled: true });
    }
    const run = runFor(request.directive, request.issuedAt, request.sentIssuedAt);
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, run, resolve, reject });
      this.schedule();
    });
  }

  private canStart(): boolean {
    if (this.inFlight < MAX_IN_FLIGHT) return true;
    return this.inFlight < MAX_IN_FLIGHT_BACKLOGGED && this.waiting.length >= BACKLOG;
  }

  private schedule(): void {
    if (this.scheduled || !this.canStart()) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.commitNext();
    });
  }

  private async commitNext(): Promise<void> {
    const batch = this.waiting.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    this.inFlight += 1;
    try {
      const results = await commit(this.deps, batch);
      batch.forEach((item, index) => item.resolve(results[index]!));
    } catch (error) {
      for (const item of batch) item.reject(error);
    } finally {
      this.inFlight -= 1;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}
