import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { QUEUE_NAME } from '../queue/names.js';
import { inRedis } from './ingest.js';
import { STANDARD_TOLERANCE_SECONDS } from './signatures.js';

const CLAIMED = 'claimed';
/**
 * A signed timestamp is accepted from 5 minutes before now to 5 minutes after, so one signed
 * request can be presented during 10 minutes: its id is remembered that long.
 */
const REMEMBER_SECONDS = 2 * STANDARD_TOLERANCE_SECONDS;

/** Redis key remembering one `webhook-id`, hashed (ids are the sender's free-form strings). */
export function webhookIdKey(prefix: string, id: string): string {
  const digest = createHash('sha256').update(id).digest('hex');
  return `${prefix}:${QUEUE_NAME}:webhook-id:${digest}`;
}

/**
 * Claims a `webhook-id` (SET NX with a TTL). Answers undefined for the first delivery, else what
 * the first delivery stored: its answer (JSON), or nothing yet when it is still being handled.
 */
export async function claimWebhookId(
  redis: Redis,
  prefix: string,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const key = webhookIdKey(prefix, id);
  const claimed = await inRedis(() => redis.set(key, CLAIMED, 'EX', REMEMBER_SECONDS, 'NX'));
  if (claimed !== null) return undefined;
  const stored = await inRedis(() => redis.get(key));
  if (stored === null || stored === CLAIMED) return {};
  try {
    return JSON.parse(stored) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Keeps the first delivery's answer for the replays, for the rest of the id's window. */
export async function rememberWebhookAnswer(
  redis: Redis,
  prefix: string,
  id: string,
  answer: object,
): Promise<void> {
  await inRedis(() => redis.set(webhookIdKey(prefix, id), JSON.stringify(answer), 'KEEPTTL', 'XX'));
}

/** A delivery that changed nothing (not 2xx) lets the sender's retry, same id, be handled afresh. */
export async function releaseWebhookId(redis: Redis, prefix: string, id: string): Promise<void> {
  await redis.del(webhookIdKey(prefix, id)).catch(() => undefined);
}
