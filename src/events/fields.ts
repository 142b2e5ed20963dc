import { isNamespaceName, isObjectName } from '../directive/syntax.js';
import type { ObjectRef } from '../directive/types.js';
import type { SeenVersion } from './cert-issued.js';
import { BadEventError } from './errors.js';
import { isRecord } from '../records.js';

export { isRecord };

/** RFC 3339 timestamp, or undefined when absent. */
export function parseTime(value: unknown, field: string): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
  if (typeof value !== 'string' || !rfc3339.test(value) || Number.isNaN(Date.parse(value))) {
    throw new BadEventError(field, 'must be an RFC 3339 timestamp such as 2026-11-29T12:00:00Z');
  }
  return new Date(value);
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
