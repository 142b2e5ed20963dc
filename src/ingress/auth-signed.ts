/**
 * Signed requests to the events endpoint: the HMAC and Standard Webhooks headers read before the
 * body, the signature checked over its exact bytes, and the webhook-id a delivery claims once.
 */

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { AuthConfig } from '../config.js';
import { HMAC_CREDENTIAL, STANDARD_CREDENTIAL } from '../config/credentials.js';
import { INVALID, noteSender, unauthorized, type AuthState } from './auth-request.js';
import {
  standardHeaders,
  timelyStandard,
  v1Signatures,
  validHmacSignature,
  validStandardSignature,
  wellFormedHmac,
} from './signatures.js';
import { claimWebhookId } from './webhook-replay.js';

/**
 * A signature header, when its scheme is configured; undefined when there is none to check. One
 * that can never verify is refused now, before its body is read and hashed, with the answer a
 * signature that does not match gets.
 */
function pendingSignature(auth: AuthConfig, request: FastifyRequest): AuthState['pending'] {
  const hmac = request.headers['x-signature-256'];
  if (auth.hmacSecret !== undefined && hmac !== undefined) {
    if (!wellFormedHmac(hmac)) throw unauthorized(INVALID);
    return { kind: 'hmac' };
  }
  if (auth.standardSecret === undefined || request.headers['webhook-signature'] === undefined) {
    return undefined;
  }
  const headers = standardHeaders(request.headers);
  if (headers === undefined)
    throw unauthorized('The webhook-id, -timestamp or -signature header is malformed.');
  // Decided before the body is read: a stale or future timestamp costs the server no bytes.
  if (!timelyStandard(headers))
    throw unauthorized('The webhook-timestamp is not within 5 minutes of now.');
  if (v1Signatures(headers.signatures).length === 0) throw unauthorized(INVALID);
  return { kind: 'standard', headers };
}

/** Whether the request carries a signature header of either scheme, configured or not. */
function signed(request: FastifyRequest): boolean {
  return (
    request.headers['x-signature-256'] !== undefined ||
    request.headers['webhook-signature'] !== undefined
  );
}

const SIGNATURE_ELSEWHERE =
  'A signature authenticates POST /v1/events only; this route needs a bearer token.';

/** No token that passed: a signature header to check over the body, or a 401 now. */
export function withoutToken(
  config: AuthConfig,
  request: FastifyRequest,
  token: string | undefined,
  signatures: boolean,
): undefined {
  const state: AuthState = { admitted: false };
  request.podBouncerAuth = state;
  if (signatures) state.pending = pendingSignature(config, request);
  if (state.pending !== undefined) return undefined;
  if (token !== undefined) throw unauthorized(INVALID);
  if (!signatures && signed(request)) throw unauthorized(SIGNATURE_ELSEWHERE);
  throw unauthorized(
    signatures
      ? 'Credentials are required: send a bearer token or a signature.'
      : 'Credentials are required: send a bearer token.',
  );
}

/** Checks a pending signature over the exact bytes received: a 401 when it does not match. */
export function verifySignature(config: AuthConfig, request: FastifyRequest, body: Buffer): void {
  const state = request.podBouncerAuth;
  if (state === undefined || state.admitted || state.pending === undefined) return;
  const { pending } = state;
  const valid =
    pending.kind === 'hmac'
      ? validHmacSignature(config.hmacSecret ?? '', body, request.headers['x-signature-256'])
      : validStandardSignature(config.standardSecret ?? Buffer.alloc(0), pending.headers, body);
  if (!valid) throw unauthorized(INVALID);
  state.verified = true;
  noteSender(request, pending.kind === 'hmac' ? HMAC_CREDENTIAL : STANDARD_CREDENTIAL);
}

/**
 * A dry run changes nothing (DESIGN §2), the memory of its webhook-id included: the same signed
 * delivery sent for real afterwards must start its run, not be answered as its own duplicate.
 */
export function dryRun(request: FastifyRequest): boolean {
  return (request.query as { dryRun?: unknown } | undefined)?.dryRun === true;
}

/** Claims a Standard Webhooks id, keyed by the route too (only the events endpoint takes one). */
export async function claimOnce(
  redis: Redis,
  prefix: string,
  request: FastifyRequest,
  webhookId: string,
): Promise<Record<string, unknown> | undefined> {
  const id = `${request.method} ${request.routeOptions.url ?? ''} ${webhookId}`;
  const earlier = await claimWebhookId(redis, prefix, id);
  if (earlier === undefined && request.podBouncerAuth) request.podBouncerAuth.webhookId = id;
  return earlier;
}

/** A replayed id: senders retry events with the same id, which is a duplicate (202). */
export function answerReplay(
  request: FastifyRequest,
  reply: FastifyReply,
  earlier: Record<string, unknown> | undefined,
): FastifyReply | undefined {
  if (earlier === undefined) return undefined;
  request.log.info('replayed webhook-id refused');
  return reply.code(202).send({ ...earlier, duplicate: true });
}
