import type { IncomingHttpHeaders } from 'node:http';
import { HTTP, ValidationError, type CloudEvent } from 'cloudevents';
import type { CertIssued } from './cert-issued.js';
import { BadEventError } from './errors.js';
import { isRecord, parseTime } from './fields.js';
import { normalizeBody } from './normalize.js';

export type CloudEventMode = 'binary' | 'structured';

/** What makes a CloudEvent unique for its senders: a redelivery carries the same pair. */
export interface CloudEventIdentity {
  source: string;
  id: string;
}

export interface NormalizedCloudEvent {
  identity: CloudEventIdentity;
  event: CertIssued;
}

const STRUCTURED_TYPE = 'application/cloudevents+json';

/** Binary mode when `ce-*` context headers are present, structured mode by content type. */
export function cloudEventMode(headers: IncomingHttpHeaders): CloudEventMode | undefined {
  const contentType = String(headers['content-type'] ?? '').toLowerCase();
  if (contentType.startsWith(STRUCTURED_TYPE)) return 'structured';
  if (headers['ce-id'] !== undefined || headers['ce-specversion'] !== undefined) return 'binary';
  return undefined;
}

/** Binary mode names a context attribute by its header, structured mode by its JSON member. */
function fieldName(mode: CloudEventMode, attribute: string): string {
  return mode === 'binary' ? `ce-${attribute}` : attribute;
}

/** The attributes as the sender wrote them, before the SDK fills in defaults (id, time). */
function rawAttribute(
  mode: CloudEventMode,
  headers: IncomingHttpHeaders,
  body: unknown,
  attribute: string,
): unknown {
  if (mode === 'binary') return headers[`ce-${attribute}`];
  return isRecord(body) ? body[attribute] : undefined;
}

/** The first schema violation of `validate()`, as the attribute it concerns. */
function violatedAttribute(error: ValidationError): { attribute: string; message: string } {
  const [first] = (error.errors ?? []) as Array<{
    instancePath?: string;
    params?: { missingProperty?: string };
    message?: string;
  }>;
  const missing = first?.params?.missingProperty;
  if (missing !== undefined) return { attribute: missing, message: 'is a required attribute' };
  const attribute = (first?.instancePath ?? '').replace(/^\//, '') || 'specversion';
  return { attribute, message: first?.message ?? 'is not a valid attribute' };
}

function toEvent(
  mode: CloudEventMode,
  headers: IncomingHttpHeaders,
  body: unknown,
): CloudEvent<unknown> {
  try {
    const event = HTTP.toEvent<unknown>({ headers, body }) as
      CloudEvent<unknown> | Array<CloudEvent<unknown>>;
    if (Array.isArray(event))
      throw new BadEventError('body', 'must be a single CloudEvent, not a batch');
    // toEvent does not validate; the SDK also invents id and time when they are missing.
    event.validate();
    return event;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const { attribute, message } = violatedAttribute(error);
    throw new BadEventError(fieldName(mode, attribute), message);
  }
}

/**
 * The longest `id` or `source` accepted. CloudEvents sets no limit (ids are UUIDs, counters or
 * hashes; sources are URI-references), but both are kept in Redis for a day and logged with every
 * answer: a kilobyte holds any real one, and a sender cannot make each of its events weigh what
 * the body limit allows.
 */
export const CLOUDEVENT_ID_CHARS = 1024;

function checkedLength(mode: CloudEventMode, name: string, value: unknown): void {
  if (typeof value === 'string' && value.length > CLOUDEVENT_ID_CHARS) {
    throw new BadEventError(
      fieldName(mode, name),
      `must be at most ${CLOUDEVENT_ID_CHARS} characters (it has ${value.length})`,
    );
  }
}

/**
 * Checks what the SDK lets through: a missing id or specversion, an id or source longer than
 * CLOUDEVENT_ID_CHARS, an unreadable time.
 */
function checkedAttributes(
  mode: CloudEventMode,
  headers: IncomingHttpHeaders,
  body: unknown,
): { id: string; time: Date | undefined } {
  const attribute = (name: string): unknown => rawAttribute(mode, headers, body, name);
  if (attribute('specversion') !== '1.0') {
    throw new BadEventError(fieldName(mode, 'specversion'), 'must be "1.0"');
  }
  const id = attribute('id');
  if (typeof id !== 'string' || id === '') {
    throw new BadEventError(fieldName(mode, 'id'), 'is a required attribute');
  }
  checkedLength(mode, 'id', id);
  checkedLength(mode, 'source', attribute('source'));
  return { id, time: parseTime(attribute('time'), fieldName(mode, 'time')) };
}

function dataOf(mode: CloudEventMode, event: CloudEvent<unknown>, body: unknown): unknown {
  if (mode === 'binary') return body;
  if (event.data_base64 !== undefined || (isRecord(body) && 'data_base64' in body)) {
    throw new BadEventError('data_base64', 'is not supported; send the data as JSON in "data"');
  }
  return event.data;
}

/** The data is read like a body of its own; its faults are named under `data`. */
function normalizeData(data: Record<string, unknown>): CertIssued {
  try {
    return normalizeBody(data);
  } catch (error) {
    if (error instanceof BadEventError) {
      throw new BadEventError(`data.${error.field}`, error.message.slice(error.field.length + 2));
    }
    throw error;
  }
}

/**
 * Reads a CloudEvent 1.0 in binary or structured mode (body already parsed as JSON) into one
 * CertIssued. Pure. The event's `data` is any other accepted shape (a native body or a
 * PodBounceDirective, which is then a reference); its `time` stands in for `issuedAt` when the
 * data carries none. `type` is not restricted: routers choose it. Rejections name the attribute.
 */
export function normalizeCloudEvent(
  mode: CloudEventMode,
  headers: IncomingHttpHeaders,
  body: unknown,
): NormalizedCloudEvent {
  if (mode === 'structured' && !isRecord(body)) {
    throw new BadEventError('body', 'must be a CloudEvent JSON object');
  }
  const { id, time } = checkedAttributes(mode, headers, body);
  const cloudEvent = toEvent(mode, headers, body);
  const data = dataOf(mode, cloudEvent, body);
  if (!isRecord(data)) {
    throw new BadEventError(
      'data',
      'must be a JSON object: a native event body or a PodBounceDirective',
    );
  }
  const inner = normalizeData(data);
  const event: CertIssued =
    inner.kind !== 'ignored' && inner.issuedAt === undefined && time !== undefined
      ? { ...inner, issuedAt: time, shape: 'cloudevent' }
      : { ...inner, shape: 'cloudevent' };
  return { identity: { source: cloudEvent.source, id }, event };
}
