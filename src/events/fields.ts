import { isNamespaceName, isObjectName } from '../directive/syntax.js';
import type { ObjectRef } from '../directive/types.js';
import type { SeenVersion } from './cert-issued.js';
import { BadEventError, InvalidDirectiveError } from './errors.js';
import { isRecord } from '../records.js';

export { isRecord };

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;
/** Years before any certificate a mesh holds: 0000 is a bug in the sender, not a date. Later
 * years are real instants; one far ahead is refused as in the future (422). */
const YEARS: [number, number] = [1970, 9999];
/** How far ahead of this server's clock a sender's clock may be. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Whether the fields name a real instant: Date.parse rolls 02-31 over to 03-03 and 24:00 to 00:00. */
function realInstant(parts: RegExpExecArray): boolean {
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = parts
    .slice(1, 7)
    .map(Number);
  const within: Array<[number, number, number]> = [
    [year, YEARS[0], YEARS[1]],
    [hour, 0, 23],
    [minute, 0, 59],
    [second, 0, 59],
    [Number(parts[9] ?? 0), 0, 23],
    [Number(parts[10] ?? 0), 0, 59],
  ];
  if (within.some(([value, min, max]) => value < min || value > max)) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * RFC 3339 timestamp, or undefined when absent. A string that is not a real instant (2026-02-31,
 * 24:00, year 0000, the empty string) is a BadEventError (400); one more than 5 minutes ahead of now is an
 * InvalidDirectiveError (422): pods created "after" it would all be skipped.
 */
export function parseTime(value: unknown, field: string, now = Date.now()): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const parts = typeof value === 'string' ? RFC3339.exec(value) : null;
  if (typeof value !== 'string' || parts === null || !realInstant(parts)) {
    throw new BadEventError(field, 'must be an RFC 3339 timestamp such as 2026-11-29T12:00:00Z');
  }
  const time = new Date(value);
  if (time.getTime() > now + MAX_CLOCK_SKEW_MS) {
    throw new InvalidDirectiveError([{ field, message: 'is more than 5 minutes in the future' }]);
  }
  return time;
}

/** A namespace/name pair read from `source`, checked against Kubernetes name syntax. */
export function parseRef(source: unknown, field: string): ObjectRef {
  if (!isRecord(source))
    throw new BadEventError(field, 'must be an object with namespace and name');
  const { namespace, name } = source;
  if (typeof namespace !== 'string' || !isNamespaceName(namespace)) {
    throw new BadEventError(`${field}.namespace`, 'must be a valid namespace name');
  }
  if (typeof name !== 'string' || !isObjectName(name)) {
    throw new BadEventError(`${field}.name`, 'must be a valid object name');
  }
  return { namespace, name };
}

/**
 * The uid, generation and resourceVersion a sender carried, where well-formed. Objects relayed by
 * routers are not ours to police: a malformed field is left out, so the event falls back to an API
 * read rather than failing.
 */
export function seenVersion(source: unknown): SeenVersion | undefined {
  if (!isRecord(source)) return undefined;
  const { uid, generation, resourceVersion } = source;
  const seen: SeenVersion = {
    ...(typeof uid === 'string' && uid !== '' ? { uid } : {}),
    ...(Number.isSafeInteger(generation) && (generation as number) > 0
      ? { generation: generation as number }
      : {}),
    ...(typeof resourceVersion === 'string' && /^\d+$/.test(resourceVersion)
      ? { resourceVersion }
      : {}),
  };
  return seen.generation !== undefined || seen.resourceVersion !== undefined ? seen : undefined;
}
