import type { ObjectRef } from '../directive/types.js';
import type { Logger } from '../logger.js';

/** A directive seen deleted: where it was, and which one it was. */
export interface DeletedRef extends ObjectRef {
  uid: string;
}

export interface DeletedDirectivesDeps {
  /** The uid the API server has under the name now (never a cache); undefined when none. */
  uidNow(ref: ObjectRef): Promise<string | undefined>;
  /** Reclaims the uid's keys (`reclaimDirective`); `busy` while a job of it still runs. */
  reclaim(ref: DeletedRef): Promise<'reclaimed' | 'busy'>;
  log: Logger;
}

/** A job still running ends at its next check; the reclaim looks again this often. */
const RETRY_MS = 5000;
/** After this many attempts (10 minutes) the keys are left to RETENTION_DAYS. */
const MAX_ATTEMPTS = 120;

/**
 * Reclaims the Redis keys of directives this worker saw deleted (a watch's DELETED, or a job that
 * ended because its directive was gone), at once and then every few seconds while a job of the
 * directive still runs. The API server confirms first that the uid is gone (a name that now
 * holds another uid was re-created: only the old uid's keys go). In-process and leaderless: every
 * replica that sees the deletion reclaims, and the reclaim is idempotent.
 */
export class DeletedDirectives {
  private readonly pending = new Map<
    string,
    { ref: DeletedRef; attempts: number; confirmed?: boolean; timer?: NodeJS.Timeout }
  >();
  private closed = false;

  constructor(private readonly deps: DeletedDirectivesDeps) {}

  /**
   * Notes that `ref` was seen deleted; its keys are reclaimed shortly. Told again while it waits
   * for a job to end (the job that just ended, say), it tries at once.
   */
  deleted(ref: DeletedRef): void {
    if (this.closed) return;
    const { namespace, name, uid } = ref;
    const known = this.pending.get(uid);
    if (known === undefined) {
      this.pending.set(uid, { ref: { namespace, name, uid }, attempts: 0 });
    } else if (known.timer === undefined) {
      return; // an attempt is under way
    } else {
      clearTimeout(known.timer);
      known.timer = undefined;
    }
    void this.attempt(uid);
  }

  close(): void {
    this.closed = true;
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  private async attempt(uid: string): Promise<void> {
    const entry = this.pending.get(uid);
    if (entry === undefined || this.closed) return;
    entry.attempts += 1;
    const { ref } = entry;
    const directive = `${ref.namespace}/${ref.name}`;
    try {
      // A uid once gone never comes back: the API server is asked once.
      if (entry.confirmed !== true && (await this.deps.uidNow(ref)) === uid) {
        this.pending.delete(uid);
        return;
      }
      entry.confirmed = true;
      if ((await this.deps.reclaim(ref)) === 'reclaimed') {
        this.deps.log.info({ directive, uid }, 'keys of a deleted directive reclaimed');
        this.pending.delete(uid);
        return;
      }
      this.deps.log.debug({ directive, uid }, 'a job of a deleted directive still runs');
    } catch (error) {
      this.deps.log.debug(
        { err: error, directive, uid },
        'could not reclaim a deleted directive yet',
      );
    }
    if (entry.attempts >= MAX_ATTEMPTS) {
      this.deps.log.warn({ directive, uid }, 'keys of a deleted directive left to RETENTION_DAYS');
      this.pending.delete(uid);
      return;
    }
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      void this.attempt(uid);
    }, RETRY_MS);
    entry.timer.unref();
  }
}
