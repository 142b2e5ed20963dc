import { ConflictError, NotFoundError, TransientError } from '../errors.js';
import { isLaterRun, toldRunKey } from '../queue/run-identity.js';
import type { Directive, DirectiveStatus, ObjectRef } from '../directive/types.js';
import type { DirectiveEvent, KubeGateway } from '../kube/gateway.js';
import type { Logger } from '../logger.js';
import { composed, type Composed } from './composed.js';
import type { TransitionWritten, WriteTarget, Written } from './written.js';
import type { Transition } from './projection.js';

export type WriteOutcome = 'written' | 'unchanged' | 'stale' | 'gone';

export type { TransitionWritten, WriteTarget, Written } from './written.js';

export interface StatusWriterOptions {
  /**
   * Called once per written transition, after its Event. It must not throw or block: an observer
   * never delays or fails the status write (errors are logged and dropped).
   */
  onTransition?: (written: TransitionWritten) => void;
}

const MAX_CONFLICTS = 10;
/** The ceiling of the pause before the n-th re-read: doubled each time, up to CONFLICT_MAX_MS. */
const CONFLICT_FIRST_MS = 10;
const CONFLICT_MAX_MS = 500;

/**
 * A status write that still conflicted after MAX_CONFLICTS re-reads: other writers of the same
 * directive (several selectors at once) kept winning. Never a verdict on the directive: retryable,
 * so the job's step runs again later, and its message carries no API server text, which must not
 * end up in `status.error`.
 */
export class StatusConflictError extends TransientError {
  constructor(describe: string) {
    super(`status write (${describe}) still conflicted after ${MAX_CONFLICTS} re-reads`);
  }
}

/**
 * Full jitter: writers that collided do not all read and write again in the same instant
 * (several selectors of one directive write its status at once).
 */
function conflictPause(attempt: number): Promise<void> {
  const ceiling = Math.min(CONFLICT_MAX_MS, CONFLICT_FIRST_MS * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/**
 * True when the status tells a later issuance of the caller's generation than the caller's run
 * (`runKey`: its issuedAt in epoch ms, "0" for none): that run superseded the caller's, and the
 * status describes the newer run (DESIGN §4), whichever of the two writes last.
 */
function tellsLaterRun(status: DirectiveStatus | undefined, target: WriteTarget): boolean {
  if (target.runKey === undefined || status?.observedGeneration !== target.generation) return false;
  const runKey = toldRunKey(status);
  if (runKey === undefined) return false;
  const caller = { generation: target.generation, runKey: target.runKey };
  return isLaterRun({ generation: status.observedGeneration, runKey }, caller);
}

/**
 * A run's last word (FINISHED, FAILED) for a generation the spec has since left behind, while the
 * status tells no newer generation: no newer run has said anything (event mode: an edit starts no
 * run by itself). Written, so that the run does not stay BOUNCING_PODS for ever; observedGeneration
 * stays the run's and tells kubectl users the status is of an older spec. A newer run's status is
 * never overwritten: once it is written, its observedGeneration is the newer one.
 */
function endsOlderGeneration(
  directive: Directive,
  target: WriteTarget,
  entries: Written[],
): boolean {
  if (directive.metadata.generation <= target.generation) return false;
  if ((directive.status?.observedGeneration ?? 0) > target.generation) return false;
  return entries.every((entry) => entry.transition.ends);
}

/**
 * Whether the directive is still the one the run writes for: the same uid, the run's generation
 * (or a newer one the run's end may outlive), and a status that tells no later run.
 */
function isTheRuns(directive: Directive, target: WriteTarget, entries: Written[]): boolean {
  const { uid, generation } = directive.metadata;
  if (uid !== target.uid) return false;
  if (generation !== target.generation && !endsOlderGeneration(directive, target, entries)) {
    return false;
  }
  return !tellsLaterRun(directive.status, target);
}

/** The gateway calls a status write makes. */
export type StatusCalls = Pick<
  KubeGateway,
  'getDirective' | 'patchDirectiveStatus' | 'recordEvent'
>;

/**
 * Writes status like a controller: read, check the directive still is the generation (and uid)
 * the caller works for, merge-patch `/status` with the resourceVersion just read, and on 409 read
 * again (after a short jittered pause) and re-apply the transition; past MAX_CONFLICTS it throws
 * the retryable StatusConflictError. A newer generation (but a run's end while the status tells
 * no newer one), a status that tells a later run of the same generation, or a deleted directive is
 * never written.
 */
export class StatusWriter {
  constructor(
    private readonly kube: StatusCalls,
    private readonly log: Logger,
    private readonly options: StatusWriterOptions = {},
  ) {}

  /**
   * Applies one transition. `lastRead` saves a GET when the caller has just read the directive;
   * a conflict always re-reads.
   */
  async apply(
    target: WriteTarget,
    transition: Transition,
    lastRead?: Directive,
  ): Promise<WriteOutcome> {
    return (await this.applyTogether([{ target, transition }], lastRead)).outcome;
  }

  /**
   * Applies transitions in order, each over the directive the previous write returned (no read
   * between them). The outcome is 'written' when any was written, else the last one's.
   */
  async applyInOrder(
    target: WriteTarget,
    transitions: Transition[],
    lastRead?: Directive,
  ): Promise<WriteOutcome> {
    let current = lastRead;
    let anyWritten = false;
    let outcome: WriteOutcome = 'unchanged';
    for (const transition of transitions) {
      const step = await this.applyTogether([{ target, transition }], current);
      outcome = step.outcome;
      if (outcome === 'stale' || outcome === 'gone') return outcome;
      anyWritten ||= outcome === 'written';
      current = step.directive;
    }
    return anyWritten ? 'written' : outcome;
  }

  /**
   * Applies several transitions of one run (the first target's uid, generation and runKey guard
   * them all) in one merge patch, each over the status the ones before it make: one write, one
   * Event per reason (`composed.ts`), and each transition told to the observers on its own.
   * Returns the directive written too, for the caller's next write.
   */
  async applyTogether(
    entries: Written[],
    lastRead?: Directive,
  ): Promise<{ outcome: WriteOutcome; directive?: Directive }> {
    const target = entries[0]!.target;
    let cached = lastRead;
    for (let attempt = 1; ; attempt += 1) {
      const directive = cached ?? (await this.read(target));
      cached = undefined;
      if (directive === undefined) return { outcome: 'gone' };
      if (!isTheRuns(directive, target, entries)) return { outcome: 'stale' };
      const change = composed(entries, directive.status ?? {});
      if (change === undefined) return { outcome: 'unchanged', directive };
      try {
        const written = await this.write(change, directive);
        return { outcome: 'written', directive: written };
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        const describe = entries.map((entry) => entry.transition.describe).join(', ');
        if (attempt >= MAX_CONFLICTS) throw new StatusConflictError(describe);
        this.log.debug({ attempt, transition: describe }, 'status write conflicted; re-reading');
        await conflictPause(attempt);
      }
    }
  }

  /** The patch, then the Events that tell it, then the observers: in that order, once. */
  private async write(change: Composed, directive: Directive): Promise<Directive> {
    const written = await this.kube.patchDirectiveStatus(directive, change.patch);
    for (const event of change.events) await this.record(written, event);
    for (const step of change.steps) this.notify({ ...step, directive: written });
    return written;
  }

  private notify(written: TransitionWritten): void {
    try {
      this.options.onTransition?.(written);
    } catch (error) {
      this.log.warn(
        { err: error, transition: written.transition.describe },
        'transition observer failed',
      );
    }
  }

  private async read(target: ObjectRef): Promise<Directive | undefined> {
    try {
      return await this.kube.getDirective(target);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** Events are for people; losing one must not fail the transition it describes. */
  private async record(directive: Directive, event: DirectiveEvent | undefined): Promise<void> {
    if (event === undefined) return;
    try {
      await this.kube.recordEvent(directive, event);
    } catch (error) {
      this.log.warn({ err: error, reason: event.reason }, 'could not record a Kubernetes Event');
    }
  }
}
