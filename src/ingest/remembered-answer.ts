import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { TransientError } from '../errors.js';
import { QUEUE_NAME, runJobIds } from '../queue/names.js';
import { runKeyOf } from '../queue/run-identity.js';
import { inRedis } from '../queue/durable.js';
import type { AcceptedEvent } from './ingest.js';

/** A claim whose holder died (crash mid-request) is released after this long. */
export const CLAIM_TTL_SECONDS = 60;
const EARLIER_ANSWER_POLLS = 40;
const EARLIER_ANSWER_POLL_MS = 100;

/**
 * Redis key remembering one delivery of a `kind` (cloudevent, webhook-id); hashed, as the parts
 * naming it (a CloudEvent's source and id, a `webhook-id`) are the sender's free-form strings.
 */
export function deliveryKey(prefix: string, kind: string, ...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\0')).digest('hex');
  return `${prefix}:${QUEUE_NAME}:${kind}:${digest}`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What Redis keeps of an accepted event's answer for the repeats of a delivery (a CloudEvent's
 * source and id, a Standard Webhooks `webhook-id`): the run it names and its selector count. The
 * job ids follow from these (`runJobIds`), so a remembered id costs the same few hundred bytes
 * for a directive of one selector or of a thousand, not the answer's ~57 bytes per selector.
 */
export interface AnsweredRun {
  uid: string;
  generation: number;
  /** The run's issuance (its runKey follows from it); absent when it has none. */
  issuedAt?: string;
  selectors: number;
}

/** The run an answer names, without what follows from it. */
export function answeredRun(answer: AcceptedEvent): AnsweredRun {
  const { uid, generation, issuedAt, selectors } = answer;
  return { uid, generation, ...(issuedAt === undefined ? {} : { issuedAt }), selectors };
}

/** What is kept of an accepted answer for its repeats: its directive and the run it named. */
export interface AnsweredRecord {
  directive: string;
  run: AnsweredRun;
}

/** The record an accepted answer is kept as. */
export function answeredRecord(answer: AcceptedEvent): AnsweredRecord {
  return { directive: answer.directive, run: answeredRun(answer) };
}

/** The answer a repeat of a delivery gets: the first delivery's, as a duplicate. */
export function duplicateAnswer({ directive, run }: AnsweredRecord): AcceptedEvent {
  const { uid, generation, issuedAt, selectors } = run;
  const jobIds = runJobIds({ uid, generation, runKey: runKeyOf(issuedAt) }, selectors);
  return {
    directive,
    uid,
    generation,
    ...(issuedAt === undefined ? {} : { issuedAt }),
    selectors,
    jobIds,
    duplicate: true,
  };
}

/**
 * The answer a repeat of a delivery gets while the first delivery may still be in flight: it
 * waits (up to ~4 s) until the first is answered and `read` finds its answer in the stored record
 * (undefined while the record is only a claim; `read` may throw to refuse the repeat). A 2xx is
 * given only for an answer the first delivery gave, so a sender never takes a repeat's 202 for an
 * event that was then lost: when the first attempt failed (its claim released) or is still not
 * answered, the repeat is a 503 with Retry-After and the sender's retry is handled afresh.
 */
export async function earlierAnswer<T>(
  redis: Redis,
  key: string,
  { read, what }: RepeatReader<T>,
): Promise<T> {
  for (let poll = 0; poll < EARLIER_ANSWER_POLLS; poll += 1) {
    const stored = await inRedis(() => redis.get(key));
    if (stored === null) break;
    const answer = read(stored);
    if (answer !== undefined) return answer;
    await sleep(EARLIER_ANSWER_POLL_MS);
  }
  throw new TransientError(
    `An earlier delivery of this ${what} is still being handled or failed; send it again shortly.`,
    1,
  );
}

/** How a repeat reads the first delivery's stored record, and what a 503 calls the delivery. */
export interface RepeatReader<T> {
  read: (stored: string) => T | undefined;
  what: string;
}

/**
 * Claims a delivery's key (SET NX, for CLAIM_TTL_SECONDS, holding `claim`): undefined for the
 * first delivery, else the first delivery's answer once it is given (`earlierAnswer`).
 */
export async function claimOrEarlier<T>(
  redis: Redis,
  key: string,
  claim: string,
  reader: RepeatReader<T>,
): Promise<T | undefined> {
  const claimed = await inRedis(() => redis.set(key, claim, 'EX', CLAIM_TTL_SECONDS, 'NX'));
  return claimed !== null ? undefined : earlierAnswer(redis, key, reader);
}
