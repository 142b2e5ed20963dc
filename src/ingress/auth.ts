/**
 * Authentication of the guarded routes: which credential admits a request, and its rate limit.
 * Tokens are checked in auth-tokens.ts, signatures in auth-signed.ts, and the fastify hooks that
 * run an Authenticator are in auth-hooks.ts.
 */

import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { AuthConfig } from '../config.js';
import type { Authenticator } from './auth-hooks.js';
import { bearer, INVALID, noteSender, senderOf, unauthorized } from './auth-request.js';
import { answerReplay, claimOnce, dryRun, verifySignature, withoutToken } from './auth-signed.js';
import { reviewedTokens, staticTokens } from './auth-tokens.js';
import { CredentialRateLimit } from './rate-limit.js';
import type { TokenVerdicts } from './token-verdicts.js';
import { releaseWebhookId } from './webhook-replay.js';

export { guard, settleHook, signedGuard, type Authenticator } from './auth-hooks.js';
export { senderOf } from './auth-request.js';
export { safeEqual } from './signatures.js';

export interface AuthDeps {
  redis: Redis;
  prefix: string;
  /** RATE_LIMIT_PER_MINUTE: requests each credential may make in any 60 s. */
  rateLimitPerMinute: number;
  /** TokenReview verdicts; absent when WEBHOOK_TOKENREVIEW_AUDIENCE is not set. */
  verdicts?: TokenVerdicts;
}

/**
 * Lets a request through when any configured mode accepts it: a static bearer token, a
 * service-account token validated by TokenReview and on the allow-list (403 when valid but not
 * allowed), or, on the events endpoint only, an HMAC signature or a Standard Webhooks signature
 * of the body. A signature covers the body (and the id and timestamp), not the method or the
 * route, so anywhere else it would admit whatever route it is presented to: there it is a 401.
 * Tokens are decided before the body is read; a request with neither a token that passed nor a
 * signature header the route takes is refused then too, as is one whose signature header has a
 * shape that can never verify. Signatures are checked over the exact
 * bytes received, after they are read and before they are parsed, so an unauthenticated caller
 * cannot make the server parse anything. Once its sender is known, a request is counted against
 * that credential's RATE_LIMIT_PER_MINUTE (429 over it, nothing else done); before, it costs Redis
 * nothing.
 */
export function createAuthenticator(config: AuthConfig, deps: AuthDeps): Authenticator {
  const rate = new CredentialRateLimit(deps.redis, deps.prefix, deps.rateLimitPerMinute);
  const staticToken = staticTokens(config);
  const reviewed = reviewedTokens(config, deps.verdicts);

  /**
   * A request whose sender is known before its body is read, within the sender's rate limit. Only
   * an admitted request is counted: one without valid credentials costs Redis nothing.
   */
  const admit = (request: FastifyRequest, sender: string): Promise<void> => {
    request.podBouncerAuth = { admitted: true };
    noteSender(request, sender);
    return rate.admit(sender);
  };

  return {
    beforeBody(request, signatures) {
      const token = bearer(request);
      if (config.none) return admit(request, 'anonymous');
      if (token !== undefined) {
        const sender = staticToken(token);
        if (sender !== undefined) return admit(request, sender);
        if (deps.verdicts !== undefined) {
          return reviewed(token).then((account) =>
            account !== undefined
              ? admit(request, account)
              : withoutToken(config, request, token, signatures),
          );
        }
      }
      return withoutToken(config, request, token, signatures);
    },

    verifyBody(request, body) {
      verifySignature(config, request, body);
    },

    afterBody(request, reply) {
      const state = request.podBouncerAuth;
      if (state?.admitted === true) return undefined;
      // A request without a body has signed nothing but its headers: an HMAC of the empty body
      // never admits; a Standard Webhooks signature is checked over the empty body.
      if (state?.pending?.kind === 'standard' && request.rawBody === undefined) {
        this.verifyBody(request, Buffer.alloc(0));
      }
      if (state?.verified !== true || state.pending === undefined) throw unauthorized(INVALID);
      const { pending } = state;
      // Over the limit, a replay is not even looked up: a 429 claims no webhook-id.
      return rate.admit(senderOf(request)).then(() => {
        if (pending.kind !== 'standard' || dryRun(request)) return undefined;
        return claimOnce(deps.redis, deps.prefix, request, pending.headers.id).then((earlier) =>
          answerReplay(request, reply, earlier),
        );
      });
    },

    settle(request, statusCode) {
      const id = request.podBouncerAuth?.webhookId;
      if (id === undefined || (statusCode >= 200 && statusCode <= 299)) return undefined;
      return releaseWebhookId(deps.redis, deps.prefix, id);
    },
  };
}
