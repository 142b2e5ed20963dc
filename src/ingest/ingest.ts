import { TransientError } from '../errors.js';
import type { CertIssued } from '../events/cert-issued.js';
import { directiveKey, type Directive } from '../directive/types.js';
import { issuanceOf } from '../events/issuance.js';
import type { EnqueueResult } from '../queue/enqueue.js';
import { groupCommit, inRedis } from '../queue/durable.js';
import { InlineApplies } from '../queue/inline-applies.js';
import { runKeyOf } from '../queue/run-identity.js';
import { accepted } from '../status/moments.js';
import { assertEventAllowed, assertSpecAllowed, scopeOf } from './bounds.js';
import type { IngestDeps } from './deps.js';
import { resolveDirective } from './directive-source.js';
import { refuseInlineOverBudget, refuseTooManyRuns } from './inline-budget.js';

export interface AcceptedEvent {
  directive: string;
  uid: string;
  generation: number;
  /** The run's issuance; absent when it has none. */
  issuedAt?: string;
  selectors: number;
  jobIds: string[];
  duplicate: boolean;
}

export interface IgnoredEvent {
  ignored: true;
  reason: string;
}

/** An answer that stays true (an accepted run) is kept, so a repeat of it needs no Redis. */
function remember(
  deps: IngestDeps,
  directive: Directive,
  issuedAt: Date | undefined,
  enqueued: EnqueueResult,
): void {
  if (deps.recentRuns === undefined || enqueued.lastsUntil === undefined) return;
  const { uid, generation } = directive.metadata;
  const ref = { uid, generation, runKey: runKeyOf(issuedAt) };
  deps.recentRuns.remember(deps.config.queuePrefix, ref, enqueued.run, enqueued.lastsUntil);
}

/**
 * PENDING and its Event follow the answer (DESIGN §2): the jobs are durable already, and the
 * worker writes the run's status as it starts when this write fails or comes late. `accepted`
 * leaves a status that already describes this run alone, so a late PENDING never overwrites the
 * worker's BOUNCING_PODS (a conflict re-reads the directive before deciding).
 */
/**
 * The newest copy of the directive this process holds: by the time a trailing PENDING write runs,
 * the watch cache may already show the worker's status for the run, and the write then changes
 * nothing and costs no request (instead of a 409 and a re-read).
 */
function freshest(deps: IngestDeps, directive: Directive): Directive {
  const cached = deps.directives?.peek(directive.metadata);
  if (cached === undefined || cached.metadata.uid !== directive.metadata.uid) return directive;
  const newer =
    Number(cached.metadata.resourceVersion) > Number(directive.metadata.resourceVersion);
  return newer ? cached : directive;
}

function markPending(deps: IngestDeps, directive: Directive, issuedAt: string | undefined): void {
  const { namespace, name, uid, generation } = directive.metadata;
  // The run it is for: a PENDING landing after a newer run's status is refused (`stale`).
  const target = { namespace, name, uid, generation, runKey: runKeyOf(issuedAt) };
  const write = (): Promise<unknown> =>
    deps.status.apply(
      target,
      accepted(generation, directive.spec.podsToBounce.length, issuedAt),
      freshest(deps, directive),
    );
  const context = { directive: directiveKey(directive.metadata) };
  const failure = 'could not mark the directive PENDING';
  if (deps.followUps !== undefined) {
    deps.followUps.start(deps.log, { failure, context, key: uid }, write);
    return;
  }
  write().catch((error: unknown) => deps.log.warn({ err: error, ...context }, failure));
}

/**
 * An inline event holds controller mode off its directive from before its apply until its run is
 * decided (`InlineApplies`), so that the applied object does not start a run of its own. A
 * transient failure keeps the hold until it lapses: the sender's retry, applying nothing new,
 * then still decides the run the event asked for.
 */
async function holdingInline<T>(
  deps: IngestDeps,
  event: Exclude<CertIssued, { kind: 'ignored' }>,
  work: () => Promise<T>,
): Promise<T> {
  if (event.kind !== 'inline') return work();
  const applies = new InlineApplies(deps.redis, deps.config.queuePrefix);
  const ref = event.manifest.metadata;
  const token = await inRedis(() => applies.begin(ref));
  let transient = false;
  try {
    return await work();
  } catch (error) {
    transient = error instanceof TransientError;
    throw error;
  } finally {
    if (!transient) {
      applies.end(ref, token).catch((error: unknown) => {
        deps.log.debug({ err: error }, 'could not end the hold of an inline apply');
      });
    }
  }
}

/**
 * Accepts one cert-issued event from `sender` (the credential's name): checks what the credential
 * may ask (inline form, namespaces, selector count) before any write, resolves the directive
 * (applied as the credential's own field manager when inline), enqueues its run (answering only
 * once every job is in Redis), then marks the run PENDING after the answer. An event that an
 * accepted run already covers (DESIGN §2 *Runs*) is a duplicate and enqueues nothing.
 */
export async function ingest(
  deps: IngestDeps,
  event: CertIssued,
  sender: string,
): Promise<AcceptedEvent | IgnoredEvent> {
  if (event.kind === 'ignored') return { ignored: true, reason: event.reason };
  const scope = scopeOf(deps.config, sender);
  assertEventAllowed(deps.config, event, scope);
  const { directive, issuedAt, enqueued } = await holdingInline(deps, event, async () => {
    await refuseInlineOverBudget(deps, event, sender);
    const resolved = await resolveDirective(deps, event, sender);
    assertSpecAllowed(deps.config, resolved.spec, resolved.metadata.namespace, scope);
    const issuance = await issuanceOf(deps, event, resolved);
    const runs = deps.runs ?? groupCommit(deps);
    const decided = await inRedis(() =>
      runs.enqueue({
        directive: resolved,
        issuedAt: issuance.issuedAt,
        ...(issuance.sentIssuedAt === undefined ? {} : { sentIssuedAt: issuance.sentIssuedAt }),
        issuance: issuance.names,
      }),
    );
    return { directive: resolved, issuedAt: issuance.issuedAt, enqueued: decided };
  });
  const { uid } = directive.metadata;
  if (enqueued.tooManyRuns !== undefined) {
    await refuseTooManyRuns(deps, directive, enqueued.tooManyRuns.retryAfterMs);
  }
  const { run, duplicate } = enqueued;
  // A recalled answer was confirmed by a replica when this process first gave it.
  if (enqueued.recalled !== true) remember(deps, directive, issuedAt, enqueued);
  if (!duplicate) markPending(deps, directive, run.issuedAt);
  const key = directiveKey(directive.metadata);
  // The request's logger carries its id and who sent it (see auth): the acceptance line says both.
  // Its fields are gathered only when the line is written.
  if (deps.log.isLevelEnabled('info')) {
    deps.log.info(
      {
        directive: key,
        run: run.runKey,
        uid,
        generation: run.generation,
        jobIds: run.jobIds,
        duplicate,
      },
      duplicate ? 'cert-issued event is a duplicate' : 'cert-issued event accepted',
    );
  }
  return {
    directive: key,
    uid,
    generation: run.generation,
    ...(run.issuedAt !== undefined ? { issuedAt: run.issuedAt } : {}),
    selectors: run.jobIds.length,
    jobIds: run.jobIds,
    duplicate,
  };
}
