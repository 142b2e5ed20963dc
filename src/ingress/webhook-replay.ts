import type { Redis } from 'ioredis';
import type { AcceptedEvent, IgnoredEvent } from '../ingest/ingest.js';
import {
  answeredRecord,
  claimOrEarlier,
  deliveryKey,
  duplicateAnswer,
  type AnsweredRecord,
} from '../ingest/remembered-answer.js';
import { inRedis } from '../queue/durable.js';
import { STANDARD_TOLERANCE_SECONDS } from './signatures.js';

const CLAIMED = 'claimed';
/**
 * A signed timestamp is accepted from 5 minutes before now to 5 minutes after, so one signed
 * request can be presented during 10 minutes: its id is remembered that long.
 */
const REMEMBER_SECONDS = 2 * STANDARD_TOLERANCE_SECONDS;

/** Redis key remembering one `webhook-id`, hashed (ids are the sender's free-form strings). */
export function webhookIdKey(prefix: string, id: string): string {
  return deliveryKey(prefix, 'webhook-id', id);
}

/**
 * The answer a stored record stands for: rebuilt from the run it names, or kept whole (an ignored
 * event's, small; an accepted one's as kept before records kept only its run); undefined while it
 * is only the first delivery's claim.
 */
function storedAnswer(stored: string): Record<string, unknown> | undefined {
  if (stored === CLAIMED) return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(stored) as Record<string, unknown>;
  } catch {
    return {};
  }
  if (!('run' in parsed)) return parsed;
  return { ...duplicateAnswer(parsed as unknown as AnsweredRecord) };
}

/**
 * Claims a `webhook-id` (SET NX). Answers undefined for the first delivery, else the first
 * delivery's answer once it is given (`earlierAnswer`: a repeat of a delivery still in flight
 * waits for it, and is a 503 when it fails). The claim lasts a minute, as a CloudEvent's: a holder
 * that died mid-request does not block the sender's retries for the id's whole window.
 */
export async function claimWebhookId(
  redis: Redis,
  prefix: string,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const key = webhookIdKey(prefix, id);
  return claimOrEarlier(redis, key, CLAIMED, { read: storedAnswer, what: 'webhook-id' });
}

/**
 * Keeps the first delivery's answer for the replays, for the rest of the id's window: an accepted
 * event's as the run it named, whatever its selector count, for the id's window.
 */
export async function rememberWebhookAnswer(
  redis: Redis,
  prefix: string,
  id: string,
  answer: AcceptedEvent | IgnoredEvent,
): Promise<void> {
  const record = 'ignored' in answer ? answer : answeredRecord(answer);
  const key = webhookIdKey(prefix, id);
  await inRedis(() => redis.set(key, JSON.stringify(record), 'EX', REMEMBER_SECONDS, 'XX'));
}

/** A delivery that changed nothing (not 2xx) lets the sender's retry, same id, be handled afresh. */
export async function releaseWebhookId(redis: Redis, prefix: string, id: string): Promise<void> {
  await redis.del(webhookIdKey(prefix, id)).catch(() => undefined);
}
