import { BouncerError, TransientError } from '../errors.js';
import type { CertIssued } from '../events/cert-issued.js';
import { directiveKey } from '../directive/types.js';
import { enqueueChain } from '../queue/enqueue.js';
import { accepted } from '../status/transitions.js';
import type { AppDeps } from './deps.js';
import { resolveDirective } from './directive-source.js';

export interface AcceptedEvent {
  directive: string;
  uid: string;
  generation: number;
  selectors: number;
  jobIds: string[];
  duplicate: boolean;
}

export interface IgnoredEvent {
  ignored: true;
  reason: string;
}

/** Redis trouble is a 503 for the sender to retry; the flow write is atomic, so nothing is half-done. */
export async function inRedis<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BouncerError) throw error;
    // The client's own words stay in the logs (the cause); the sender reads a plain sentence.
    throw new TransientError('Redis is unreachable; try again shortly.', 5, { cause: error });
  }
}

/**
 * Accepts one cert-issued event: resolves the directive, enqueues its chain (answering only once
 * every job is in Redis) and marks the new generation PENDING. A generation already accepted is a
 * duplicate and enqueues nothing.
 */
export async function ingest(
  deps: AppDeps,
  event: CertIssued,
): Promise<AcceptedEvent | IgnoredEvent> {
  if (event.kind === 'ignored') return { ignored: true, reason: event.reason };
  const directive = await resolveDirective(deps, event);
  const { namespace, name, uid, generation } = directive.metadata;
  const { jobIds, duplicate } = await inRedis(() =>
    enqueueChain(
      { flows: deps.flows, redis: deps.redis, prefix: deps.config.queuePrefix },
      directive,
      event.issuedAt,
    ),
  );
  if (!duplicate) {
    try {
      // Before the answer, so a sender that reads the directive after a 202 sees PENDING (or
      // later); `accepted` leaves a status of this generation alone if the worker was faster.
      await deps.status.apply(
        { namespace, name, uid, generation },
        accepted(generation, directive.spec.podsToBounce.length),
        directive,
      );
    } catch (error) {
      // The jobs are durable and the worker writes the status as it starts: do not fail the sender.
      deps.log.warn(
        { err: error, directive: directiveKey(directive.metadata) },
        'could not mark the directive PENDING',
      );
    }
  }
  return {
    directive: directiveKey(directive.metadata),
    uid,
    generation,
    selectors: directive.spec.podsToBounce.length,
    jobIds,
    duplicate,
  };
}
