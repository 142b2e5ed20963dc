import { DIRECTIVE_KIND } from '../directive/types.js';
import type { CertIssued } from './cert-issued.js';
import { looksLikeDirectiveObject, parseDirectiveObject } from './directive-object.js';
import { BadEventError } from './errors.js';
import { isRecord, parseRef, parseTime, seenVersion } from './fields.js';

const WATCH_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** Native shape: `{directive: {namespace, name} | <directive object>, issuedAt?}`. */
function fromNative(body: Record<string, unknown>): CertIssued {
  const issuedAt = parseTime(body.issuedAt, 'issuedAt');
  const directive = body.directive;
  if (!isRecord(directive)) {
    throw new BadEventError(
      'directive',
      'must be an object: a {namespace, name} reference or a PodBounceDirective',
    );
  }
  if (looksLikeDirectiveObject(directive)) {
    const manifest = parseDirectiveObject(directive, 'directive');
    return { kind: 'inline', manifest, ...(issuedAt ? { issuedAt } : {}), shape: 'native-inline' };
  }
  const ref = parseRef(directive, 'directive');
  const generation = directive.generation;
  if (
    generation !== undefined &&
    !(Number.isSafeInteger(generation) && (generation as number) > 0)
  ) {
    throw new BadEventError('directive.generation', 'must be a positive integer when given');
  }
  const seen = seenVersion(directive);
  return {
    kind: 'reference',
    ref,
    ...(seen ? { seen } : {}),
    ...(issuedAt ? { issuedAt } : {}),
    shape: 'native-reference',
  };
}

type Reference = Extract<CertIssued, { kind: 'reference' }>;

function withSeen(event: Reference, source: unknown): Reference {
  const seen = seenVersion(source);
  return seen ? { ...event, seen } : event;
}

/** `{type, object}` as event routers forward Kubernetes watch events; DELETED is ignored. */
function fromWatchEvent(body: Record<string, unknown>): CertIssued {
  if (body.type === 'DELETED' || body.type === 'BOOKMARK') {
    return {
      kind: 'ignored',
      reason: `${String(body.type)} watch events need no bounce`,
      shape: 'watch-event',
    };
  }
  if (!isRecord(body.object) || body.object.kind !== DIRECTIVE_KIND) {
    throw new BadEventError('object.kind', `must be ${DIRECTIVE_KIND}`);
  }
  return withSeen(
    {
      kind: 'reference',
      ref: parseRef(body.object.metadata, 'object.metadata'),
      shape: 'watch-event',
    },
    body.object.metadata,
  );
}

/** The component name pod-bouncer records its own Events under. */
export const REPORTING_COMPONENT = 'pod-bouncer';

/** An Event pod-bouncer itself recorded (an exporter forwarding every Event must not loop). */
function recordedByUs(body: Record<string, unknown>): boolean {
  const source = isRecord(body.source) ? body.source.component : undefined;
  // Compared as a person would read them: "Pod-Bouncer" or "pod-bouncer " is still us.
  const named = (value: unknown): boolean =>
    typeof value === 'string' && value.trim().toLowerCase() === REPORTING_COMPONENT;
  return [body.reportingController, body.reportingComponent, source].some(named);
}

/** A core/v1 Event as kubernetes-event-exporter posts it: the involved object is the reference. */
function fromKubernetesEvent(body: Record<string, unknown>): CertIssued {
  const involved = body.involvedObject ?? body.regarding;
  if (!isRecord(involved)) throw new BadEventError('involvedObject', 'must be an object');
  if (recordedByUs(body)) {
    return {
      kind: 'ignored',
      reason: 'events recorded by pod-bouncer itself need no bounce',
      shape: 'kubernetes-event',
    };
  }
  if (involved.kind !== DIRECTIVE_KIND) {
    return {
      kind: 'ignored',
      reason: `events about ${String(involved.kind)} are not for pod-bouncer`,
      shape: 'kubernetes-event',
    };
  }
  const issuedAt =
    parseTime(body.eventTime, 'eventTime') ?? parseTime(body.firstTimestamp, 'firstTimestamp');
  return withSeen(
    {
      kind: 'reference',
      ref: parseRef(involved, 'involvedObject'),
      ...(issuedAt ? { issuedAt } : {}),
      shape: 'kubernetes-event',
    },
    involved,
  );
}

function fromArgoEnvelope(body: Record<string, unknown>, depth: number): CertIssued {
  const data = body.data as Record<string, unknown>;
  // A resource event source reports deletions as well: a deleted directive has nothing to bounce.
  if (data.type === 'DELETE') {
    return {
      kind: 'ignored',
      reason: 'DELETE resource events need no bounce',
      shape: 'argo-envelope',
    };
  }
  const inner = isRecord(data.body) ? data.body : data;
  return { ...normalizeBody(inner, depth + 1), shape: 'argo-envelope' };
}

function isArgoEnvelope(body: Record<string, unknown>, depth: number): boolean {
  return depth === 0 && isRecord(body.context) && isRecord(body.data);
}

function isWatchEvent(body: Record<string, unknown>): boolean {
  return typeof body.type === 'string' && WATCH_TYPES.has(body.type) && 'object' in body;
}

/**
 * Reads any accepted JSON body into one CertIssued event. Pure: no I/O, and every rejection is a
 * BadEventError (400) or InvalidDirectiveError (422) that names the offending field.
 */
export function normalizeBody(body: unknown, depth = 0): CertIssued {
  if (!isRecord(body)) throw new BadEventError('body', 'must be a JSON object');
  if ('directive' in body) return fromNative(body);
  if (isArgoEnvelope(body, depth)) return fromArgoEnvelope(body, depth);
  if ('involvedObject' in body || body.kind === 'Event') return fromKubernetesEvent(body);
  if (isWatchEvent(body)) return fromWatchEvent(body);
  if (body.kind === DIRECTIVE_KIND) {
    return withSeen(
      { kind: 'reference', ref: parseRef(body.metadata, 'metadata'), shape: 'directive-object' },
      body.metadata,
    );
  }
  throw new BadEventError(
    'body',
    'fits none of the accepted shapes: expected a "directive" field, a watch event, a PodBounceDirective, a Kubernetes Event or an Argo Events envelope',
  );
}
