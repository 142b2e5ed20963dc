import type { FastifyRequest } from 'fastify';
import type { CertIssued } from '../events/cert-issued.js';
import {
  cloudEventMode,
  normalizeCloudEvent,
  type CloudEventIdentity,
} from '../events/cloudevent.js';
import { normalizeBody } from '../events/normalize.js';
import { asReceived } from '../events/received.js';

export interface ReceivedEvent {
  event: CertIssued;
  /** Set when the body was a CloudEvent: its (source, id) is delivered at most once. */
  cloudEvent?: CloudEventIdentity;
}

/**
 * Reads any accepted body — a CloudEvent in either mode, or a plain JSON shape — as it counts at
 * `receivedAt` (an `issuedAt` ahead of the clock is that moment: `asReceived`). Pure but for
 * the clock read as the default of `receivedAt`.
 */
export function readEvent(
  request: Pick<FastifyRequest, 'headers' | 'body'>,
  receivedAt = Date.now(),
): ReceivedEvent {
  const mode = cloudEventMode(request.headers);
  if (mode === undefined) return { event: asReceived(normalizeBody(request.body), receivedAt) };
  const { event, identity } = normalizeCloudEvent(mode, request.headers, request.body);
  return { event: asReceived(event, receivedAt), cloudEvent: identity };
}
