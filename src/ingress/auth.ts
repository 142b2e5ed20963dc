import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { AuthConfig } from '../config.js';
import { HMAC_CREDENTIAL, STANDARD_CREDENTIAL } from '../config/credentials.js';
import type { Logger } from '../logger.js';
import { HttpProblem } from './http-errors.js';
import { CredentialRateLimit } from './rate-limit.js';
import {
  standardHeaders,
  timelyStandard,
  validHmacSignature,
  validStandardSignature,
  type StandardHeaders,
} from './signatures.js';
import type { TokenVerdicts } from './token-verdicts.js';
import { claimWebhookId, releaseWebhookId } from './webhook-replay.js';

export { safeEqual } from './signatures.js';

/** How far a request got through authentication; kept on the request between the hooks. */
interface AuthState {
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

/** One-shot SHA-256 (no Hash object per request). */
const digest = (value: string): Buffer => hash('sha256', value, 'buffer');

/**
 * Who sent a request, by the name its credential goes by (DESIGN §2): a token's name (`issuer`,
 * or `token<i>` for the i-th of WEBHOOK_TOKENS when it has none), `hmac`, `standard`, a service
 * account's `<ns>:<name>`, or `anonymous` (WEBHOOK_AUTH=none); never a credential. The log lines
 * say it, and what a credential may do is keyed on it.
 */
function noteSender(request: FastifyRequest, sender: string): void {
  if (request.podBouncerAuth !== undefined) request.podBouncerAuth.sender = sender;
  (request.log as Logger).setBindings({ sender });
}

/** Who sent an admitted request (see `noteSender`). */
export function senderOf(request: FastifyRequest): string {
  return request.podBouncerAuth?.sender ?? 'anonymous';
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

function unauthorized(message: string): HttpProblem {
  return new HttpProblem(401, 'unauthorized', message, {
    'www-authenticate': 'Bearer realm="pod-bouncer"',
  });
}

const INVALID = 'The credentials are not valid.';

export interface AuthDeps {
  redis: Redis;
  prefix: string;
  /** RATE_LIMIT_PER_MINUTE: requests each credential may make in any 60 s. */
  rateLimitPerMinute: number;
  /** TokenReview verdicts; absent when WEBHOOK_TOKENREVIEW_AUDIENCE is not set. */
  verdicts?: TokenVerdicts;
}

/**
 * The hooks a guarded route uses, in the order a request meets them. Each answers synchronously
 * (throwing its refusal) when it needs nothing outside the process, and returns a promise only
 * when it waits on TokenReview or Redis: a refused request costs no promise, and an admitted one
 * the one Redis call of its credential's rate limit.
 */
export interface Authenticator {
  /**
   * onRequest: decides whatever needs no body, and refuses a request with no credential. A
   * signature header is taken only where `signatures` is set (the events endpoint). A request
   * admitted here is counted against its credential's rate limit (429 over it).
   */
  beforeBody(request: FastifyRequest, signatures: boolean): Promise<void> | undefined;
  /** Called by the body parser with the exact bytes, before they are parsed: throws a 401. */
  verifyBody(request: FastifyRequest, body: Buffer): void;
  /**
   * preHandler: admits what was admitted or verified, counting a verified signature against its
   * scheme's rate limit (429 over it); answers a replayed webhook-id.
   */
  afterBody(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> | undefined;
  /** onResponse: an answer that changed nothing releases the webhook-id for the sender's retry. */
  settle(request: FastifyRequest, statusCode: number): Promise<void> | undefined;
}

/** A signature header, when its scheme is configured; undefined when there is none to check. */
function pendingSignature(auth: AuthConfig, request: FastifyRequest): AuthState['pending'] {
  if (auth.hmacSecret !== undefined && request.headers['x-signature-256'] !== undefined) {
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

/**
 * A dry run changes nothing (DESIGN §2), the memory of its webhook-id included: the same signed
 * delivery sent for real afterwards must start its run, not be answered as its own duplicate.
 */
function dryRun(request: FastifyRequest): boolean {
  return (request.query as { dryRun?: unknown } | undefined)?.dryRun === true;
}

/** Claims a Standard Webhooks id, keyed by the route too (only the events endpoint takes one). */
async function claimOnce(
  deps: AuthDeps,
  request: FastifyRequest,
  webhookId: string,
): Promise<Record<string, unknown> | undefined> {
  const id = `${request.method} ${request.routeOptions.url ?? ''} ${webhookId}`;
  const earlier = await claimWebhookId(deps.redis, deps.prefix, id);
  if (earlier === undefined && request.podBouncerAuth) request.podBouncerAuth.webhookId = id;
  return earlier;
}

/** A replayed id: senders retry events with the same id, which is a duplicate (202). */
function answerReplay(
  request: FastifyRequest,
  reply: FastifyReply,
  earlier: Record<string, unknown> | undefined,
): FastifyReply | undefined {
  if (earlier === undefined) return undefined;
  request.log.info('replayed webhook-id refused');
  return reply.code(202).send({ ...earlier, duplicate: true });
}

/**
 * Lets a request through when any configured mode accepts it: a static bearer token, a
 * service-account token validated by TokenReview and on the allow-list (403 when valid but not
 * allowed), or, on the events endpoint only, an HMAC signature or a Standard Webhooks signature
 * of the body. A signature covers the body (and the id and timestamp), not the method or the
 * route, so anywhere else it would admit whatever route it is presented to: there it is a 401.
 * Tokens are decided before the body is read; a request with neither a token that passed nor a
 * signature header the route takes is refused then too. Signatures are checked over the exact
 * bytes received, after they are read and before they are parsed, so an unauthenticated caller
 * cannot make the server parse anything. Once its sender is known, a request is counted against
 * that credential's RATE_LIMIT_PER_MINUTE (429 over it, nothing else done); before, it costs Redis
 * nothing.
 */
export function createAuthenticator(config: AuthConfig, deps: AuthDeps): Authenticator {
  const rate = new CredentialRateLimit(deps.redis, deps.prefix, deps.rateLimitPerMinute);
  const tokenDigests = config.tokens.map(({ name, token }) => ({ name, secret: digest(token) }));
  /** The matching token's name; every one is compared, so time tells nothing. */
  const staticToken = (token: string): string | undefined => {
    const candidate = digest(token);
    let found: string | undefined;
    for (const { name, secret } of tokenDigests) {
      if (timingSafeEqual(candidate, secret) && found === undefined) found = name;
    }
    return found;
  };
  const reviewed = async (token: string): Promise<string | undefined> => {
    if (deps.verdicts === undefined) return undefined;
    const verdict = await deps.verdicts.verdict(token);
    if (!('account' in verdict)) return undefined;
    if (config.allowedServiceAccounts.includes(verdict.account)) return verdict.account;
    throw new HttpProblem(403, 'forbidden', `Service account ${verdict.account} is not allowed.`);
  };

  /**
   * A request whose sender is known before its body is read, within the sender's rate limit. Only
   * an admitted request is counted: one without valid credentials costs Redis nothing.
   */
  const admit = (request: FastifyRequest, sender: string): Promise<void> => {
    request.podBouncerAuth = { admitted: true };
    noteSender(request, sender);
    return rate.admit(sender);
  };
  /** No token that passed: a signature header to check over the body, or a 401 now. */
  const withoutToken = (
    request: FastifyRequest,
    token: string | undefined,
    signatures: boolean,
  ): undefined => {
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
              : withoutToken(request, token, signatures),
          );
        }
      }
      return withoutToken(request, token, signatures);
    },

    verifyBody(request, body) {
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
        return claimOnce(deps, request, pending.headers.id).then((earlier) =>
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

type Done = (error?: Error) => void;

interface GuardHooks {
  onRequest: (request: FastifyRequest, reply: FastifyReply, done: Done) => void;
  preHandler: (request: FastifyRequest, reply: FastifyReply, done: Done) => void;
}

/** Runs a hook that answers synchronously or with a promise, fastify's callback way. */
function callback(run: () => Promise<unknown> | undefined, done: Done): void {
  let pending: Promise<unknown> | undefined;
  try {
    pending = run();
  } catch (error) {
    done(error as Error);
    return;
  }
  if (pending === undefined) done();
  else pending.then(() => done(), done);
}

/**
 * A guarded route's hooks, in fastify's callback form: a request decided in process costs no
 * promise. A replayed webhook-id is answered by the preHandler itself, and the route's handler
 * then does not run.
 */
function hooks(auth: Authenticator, signatures: boolean): GuardHooks {
  return {
    onRequest: (request, _reply, done) =>
      callback(() => auth.beforeBody(request, signatures), done),
    preHandler: (request, reply, done) => {
      let pending: Promise<FastifyReply | undefined> | undefined;
      try {
        pending = auth.afterBody(request, reply);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (pending === undefined) done();
      else pending.then((answered) => (answered === undefined ? done() : undefined), done);
    },
  };
}

/** The hooks of a route that takes tokens only: a signature alone is a 401 there. */
export function guard(auth: Authenticator): GuardHooks {
  return hooks(auth, false);
}

/**
 * The events endpoint's hooks: tokens, and the HMAC and Standard Webhooks signatures made for
 * it (DESIGN §2). No other route takes a signature.
 */
export function signedGuard(auth: Authenticator): GuardHooks {
  return hooks(auth, true);
}

/** The onResponse hook that settles a request's webhook-id, in fastify's callback form. */
export function settleHook(
  auth: Authenticator,
): (request: FastifyRequest, reply: FastifyReply, done: Done) => void {
  return (request, reply, done) => callback(() => auth.settle(request, reply.statusCode), done);
}
