import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { TransientError } from '../errors.js';
import type { CertIssued } from '../events/cert-issued.js';
import {
  cloudEventMode,
  normalizeCloudEvent,
  type CloudEventIdentity,
} from '../events/cloudevent.js';
import { normalizeBody } from '../events/normalize.js';
import { QUEUE_NAME } from '../queue/names.js';
import type { AppDeps } from './deps.js';
import { inRedis, ingest, type AcceptedEvent, type IgnoredEvent } from './ingest.js';

const DAY_SECONDS = 24 * 3600;
/** A claim whose holder died (crash mid-request) is released after this long. */
const CLAIM_TTL_SECONDS = 60;
const CLAIMED = 'claimed';
const EARLIER_ANSWER_POLLS = 40;
const EARLIER_ANSWER_POLL_MS = 100;

export interface ReceivedEvent {
  event: CertIssued;
  /** Set when the body was a CloudEvent: its (source, id) is delivered at most once. */
  cloudEvent?: CloudEventIdentity;
}

/** Reads any accepted body — a CloudEvent in either mode, or a plain JSON shape. Pure. */
export function readEvent(request: Pick<FastifyRequest, 'headers' | 'body'>): ReceivedEvent {
  const mode = cloudEventMode(request.headers);
  if (mode === undefined) return { event: normalizeBody(request.body) };
  const { event, identity } = normalizeCloudEvent(mode, request.headers, request.body);
  return { event, cloudEvent: identity };
}

/** Redis key remembering one CloudEvent; hashed, as source and id are free-form strings. */
export function cloudEventKey(prefix: string, identity: CloudEventIdentity): string {
  const digest = createHash('sha256')
    .update(identity.source)
    .update('\0')
    .update(identity.id)
    .digest('hex');
  return `${prefix}:${QUEUE_NAME}:cloudevent:${digest}`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer given to the first delivery, waiting briefly while that delivery is in progress. */
async function earlierAnswer(deps: AppDeps, key: string): Promise<AcceptedEvent> {
  for (let poll = 0; poll < EARLIER_ANSWER_POLLS; poll += 1) {
    const stored = await inRedis(() => deps.redis.get(key));
    if (stored !== null && stored !== CLAIMED) {
      return { ...(JSON.parse(stored) as AcceptedEvent), duplicate: true };
    }
    if (stored === null) break;
    await sleep(EARLIER_ANSWER_POLL_MS);
  }
  throw new TransientError(
    'An earlier delivery of this CloudEvent is still being handled; send it again shortly.',
    1,
  );
}

/**
 * Accepts a CloudEvent at most once per (source, id), even if the directive changed in between
 * (a redelivered event must not start a run for a generation it never meant). The pair is claimed
 * in Redis (SET NX) before anything happens — an inline directive is not even applied for a
 * redelivery — and replaced by the answer once the event is accepted, kept for a week. A failed
 * attempt releases its claim so the sender's retry is handled afresh. The answer is kept for
 * RETENTION_DAYS, so a redelivery within retention is still a duplicate. Ignored events cost
 * nothing in Redis.
 */
export async function ingestCloudEvent(
  deps: AppDeps,
  identity: CloudEventIdentity,
  event: CertIssued,
  sender: string,
): Promise<AcceptedEvent | IgnoredEvent> {
  if (event.kind === 'ignored') return ingest(deps, event, sender);
  const key = cloudEventKey(deps.config.queuePrefix, identity);
  const claimed = await inRedis(() => deps.redis.set(key, CLAIMED, 'EX', CLAIM_TTL_SECONDS, 'NX'));
  if (claimed === null) return earlierAnswer(deps, key);
  let result: AcceptedEvent | IgnoredEvent;
  try {
    result = await ingest(deps, event, sender);
  } catch (error) {
    await deps.redis.del(key).catch(() => undefined);
    throw error;
  }
  const retention = deps.config.retentionDays * DAY_SECONDS;
  await inRedis(() => deps.redis.set(key, JSON.stringify(result), 'EX', retention));
  return result;
}
