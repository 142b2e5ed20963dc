import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { QUEUE_NAME } from '../queue/names.js';
import { inRedis, type AcceptedEvent, type IgnoredEvent } from './ingest.js';
import { answeredRun, duplicateAnswer, type AnsweredRun } from './remembered-answer.js';
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

/** What is kept of an accepted delivery's answer: the run it named (`AnsweredRun`). */
interface AnsweredRecord {
  directive: string;
  run: AnsweredRun;
}

/**
 * The answer a stored record stands for: rebuilt from the run it names, or kept whole (an ignored
 * event's, small; an accepted one's as kept before records kept only its run).
 */
function storedAnswer(stored: string): Record<string, unknown> {
  const parsed = JSON.parse(stored) as Record<string, unknown>;
  if (!('run' in parsed)) return parsed;
  const { directive, run } = parsed as unknown as AnsweredRecord;
  return { ...duplicateAnswer(directive, run) };
}

/**
 * Claims a `webhook-id` (SET NX with a TTL). Answers undefined for the first delivery, else what
 * the first delivery stored: its answer, or nothing yet when it is still being handled.
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
    return storedAnswer(stored);
  } catch {
    return {};
  }
}

/**
 * Keeps the first delivery's answer for the replays, for the rest of the id's window: an accepted
 * event's as the run it named, whatever its selector count.
 */
export async function rememberWebhookAnswer(
  redis: Redis,
  prefix: string,
  id: string,
  answer: AcceptedEvent | IgnoredEvent,
): Promise<void> {
  const record: AnsweredRecord | IgnoredEvent =
    'ignored' in answer ? answer : { directive: answer.directive, run: answeredRun(answer) };
  await inRedis(() => redis.set(webhookIdKey(prefix, id), JSON.stringify(record), 'KEEPTTL', 'XX'));
}

/** A delivery that changed nothing (not 2xx) lets the sender's retry, same id, be handled afresh. */
export async function releaseWebhookId(redis: Redis, prefix: string, id: string): Promise<void> {
  await redis.del(webhookIdKey(prefix, id)).catch(() => undefined);
}
