import { ConflictError, NotFoundError } from '../errors.js';
import type { Directive, ObjectRef } from '../directive/types.js';
import type { DirectiveEvent, KubeGateway } from '../kube/gateway.js';
import type { Logger } from '../logger.js';
import { eventOf, type Transition } from './transitions.js';

export type WriteOutcome = 'written' | 'unchanged' | 'stale' | 'gone';

const MAX_CONFLICTS = 10;

/**
 * Writes status like a controller: read, check the directive still is the generation (and uid)
 * the caller works for, merge-patch `/status` with the resourceVersion just read, and on 409 read
 * again and re-apply the transition. A newer generation or a deleted directive is never written.
 */
export class StatusWriter {
  constructor(
    private readonly kube: KubeGateway,
    private readonly log: Logger,
  ) {}

  /**
   * Applies one transition. `lastRead` saves a GET when the caller has just read the directive;
   * a conflict always re-reads.
   */
  async apply(
    target: ObjectRef & { uid: string; generation: number },
    transition: Transition,
    lastRead?: Directive,
  ): Promise<WriteOutcome> {
    let cached = lastRead;
    for (let attempt = 1; ; attempt += 1) {
      const directive = cached ?? (await this.read(target));
      cached = undefined;
      if (directive === undefined) return 'gone';
      const { uid, generation } = directive.metadata;
      if (uid !== target.uid || generation !== target.generation) return 'stale';
      const patch = transition.patch(directive.status ?? {});
      if (patch === undefined) return 'unchanged';
      try {
        const written = await this.kube.patchDirectiveStatus(directive, patch);
        await this.record(written, eventOf(transition, directive.status ?? {}));
        return 'written';
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= MAX_CONFLICTS) throw error;
        this.log.debug(
          { attempt, transition: transition.describe },
          'status write conflicted; re-reading',
        );
      }
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
