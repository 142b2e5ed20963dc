/**
 * What authentication keeps on a request between its hooks, who sent it, and the 401 it answers:
 * the pieces the token and signature paths share.
 */

import type { FastifyRequest } from 'fastify';
import type { Logger } from '../logger.js';
import { HttpProblem } from './http-errors.js';
import type { StandardHeaders } from './signatures.js';

/** How far a request got through authentication; kept on the request between the hooks. */
export interface AuthState {
  /** Decided without the body: a static token, a reviewed token, or `WEBHOOK_AUTH=none`. */
  admitted: boolean;
  /** A signature that can only be checked over the body, once it has been read. */
  pending?: { kind: 'hmac' } | { kind: 'standard'; headers: StandardHeaders };
  verified?: boolean;
  /** A Standard Webhooks id this request claimed in Redis. */
  webhookId?: string;
  /** Who sent it, once known (`noteSender`): a CloudEvent's (source, id) is that sender's. */
  sender?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    podBouncerAuth?: AuthState;
  }
}

/**
 * Who sent a request, by the name its credential goes by (DESIGN §2): a token's name (`issuer`,
 * or `token<i>` for the i-th of WEBHOOK_TOKENS when it has none), `hmac`, `standard`, a service
 * account's `<ns>:<name>`, or `anonymous` (WEBHOOK_AUTH=none); never a credential. The log lines
 * say it, and what a credential may do is keyed on it.
 */
export function noteSender(request: FastifyRequest, sender: string): void {
  if (request.podBouncerAuth !== undefined) request.podBouncerAuth.sender = sender;
  (request.log as Logger).setBindings({ sender });
}

/** Who sent an admitted request (see `noteSender`). */
export function senderOf(request: FastifyRequest): string {
  return request.podBouncerAuth?.sender ?? 'anonymous';
}

export function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

export function unauthorized(message: string): HttpProblem {
  return new HttpProblem(401, 'unauthorized', message, {
    'www-authenticate': 'Bearer realm="pod-bouncer"',
  });
}

export const INVALID = 'The credentials are not valid.';
