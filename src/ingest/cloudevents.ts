import { directiveKey } from '../directive/types.js';
import type { CertIssued } from '../events/cert-issued.js';
import type { CloudEventIdentity } from '../events/cloudevent.js';
import { inRedis } from '../queue/durable.js';
import type { IngestDeps } from './deps.js';
import { CloudEventIdConflictError } from './errors.js';
import { ingest, type AcceptedEvent, type IgnoredEvent } from './ingest.js';
import { claimWithinBudget, DAY_SECONDS, releaseClaim } from './cloudevent-budget.js';
import {
  answeredRun,
  deliveryKey,
  duplicateAnswer,
  earlierAnswer,
  type AnsweredRun,
} from './remembered-answer.js';

/** Redis key remembering one CloudEvent; hashed, as source and id are free-form strings. */
export function cloudEventKey(prefix: string, identity: CloudEventIdentity): string {
  return deliveryKey(prefix, 'cloudevent', identity.source, identity.id);
}

/**
 * What Redis keeps of a CloudEvent: who sent it, for which directive, and once it is handled, the
 * run its answer named (`AnsweredRun`: the answer is rebuilt from it, job ids and all). Only that
 * sender's repeats for that directive are ever given the answer.
 */
interface CloudEventRecord {
  sender: string;
  directive: string;
  run?: AnsweredRun;
  /** The whole answer, as records kept it before they kept only its run. */
  answer?: AcceptedEvent;
}

/** The answer a record gives a repeat, once the first delivery was answered. */
function repeatAnswer(record: CloudEventRecord): AcceptedEvent | undefined {
  if (record.run !== undefined)
    return duplicateAnswer({ directive: record.directive, run: record.run });
  return record.answer === undefined ? undefined : { ...record.answer, duplicate: true };
}

/**
 * A stored record. One written before records named their sender (a claim, `claimed`, or the bare
 * answer) is taken as this sender's: its redelivery stays a duplicate across an upgrade, and the
 * directive it was for still decides.
 */
function recordOf(stored: string, mine: CloudEventRecord): CloudEventRecord {
  if (stored === 'claimed') return mine;
  const parsed = JSON.parse(stored) as CloudEventRecord | AcceptedEvent;
  if ('sender' in parsed) return parsed;
  return { sender: mine.sender, directive: parsed.directive, answer: parsed };
}

/** The directive an event names, as `namespace/name`, before anything is read or applied. */
function directiveNamed(event: Exclude<CertIssued, { kind: 'ignored' }>): string {
  return directiveKey(event.kind === 'reference' ? event.ref : event.manifest.metadata);
}

function conflict(): CloudEventIdConflictError {
  return new CloudEventIdConflictError(
    'This CloudEvent source and id were already used by another sender or for another directive; give each event an id of its own.',
  );
}

/**
 * What a stored record answers a repeat of `mine`: the first delivery's answer once it is given;
 * a 409 when the pair is another sender's or another directive's.
 */
function repeatOf(mine: CloudEventRecord): (stored: string) => AcceptedEvent | undefined {
  return (stored) => {
    const record = recordOf(stored, mine);
    if (record.sender !== mine.sender || record.directive !== mine.directive) throw conflict();
    return repeatAnswer(record);
  };
}

/**
 * Accepts a CloudEvent at most once per (source, id), even if the directive changed in between
 * (a redelivered event must not start a run for a generation it never meant). The pair is claimed
 * in Redis (`claimWithinBudget`) before anything happens — an inline directive is not even
 * applied for a redelivery — with the sender's credential and the directive it names, and the
 * answer is added once the event is accepted. The same pair again from that sender for that
 * directive is a duplicate, whatever its data; from another sender or for another directive it is
 * a 409, so an id one sender used can neither swallow another's event nor hand it someone else's
 * result (DESIGN §2 *Runs*). Kept for 24 hours from its claim, not RETENTION_DAYS: a sender
 * redelivers within hours. An id is cheap to make, so the new ids a credential may have
 * remembered in any 24 h are bounded (CLOUDEVENT_IDS_PER_DAY); repeats of remembered ones are
 * answered beyond it. A failed attempt releases its claim, and its count, so the sender's retry
 * is handled afresh. Ignored events cost nothing in Redis.
 */
export async function ingestCloudEvent(
  deps: IngestDeps,
  identity: CloudEventIdentity,
  event: CertIssued,
  sender: string,
): Promise<AcceptedEvent | IgnoredEvent> {
  if (event.kind === 'ignored') return ingest(deps, event, sender);
  const { queuePrefix: prefix, cloudEventIdsPerDay: perDay } = deps.config;
  const key = cloudEventKey(prefix, identity);
  const where = { key, prefix, sender, perDay };
  const mine: CloudEventRecord = { sender, directive: directiveNamed(event) };
  const claimed = await claimWithinBudget(deps.redis, where, JSON.stringify(mine));
  if (claimed === undefined) {
    return earlierAnswer(deps.redis, key, { read: repeatOf(mine), what: 'CloudEvent' });
  }
  let result: AcceptedEvent | IgnoredEvent;
  try {
    result = await ingest(deps, event, sender);
  } catch (error) {
    await releaseClaim(deps.redis, where, claimed);
    throw error;
  }
  // Never so: ingest ignores only events of the ignored kind, answered above.
  if ('ignored' in result) return result;
  const record: CloudEventRecord = { ...mine, run: answeredRun(result) };
  const until = claimed.at + DAY_SECONDS;
  await inRedis(() => deps.redis.set(key, JSON.stringify(record), 'EXAT', until));
  return result;
}
