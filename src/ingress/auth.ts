import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AuthConfig } from '../config.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { Logger } from '../logger.js';
import { HttpProblem } from './http-errors.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Constant-time equality that does not leak the length of the secret either. */
export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The same check against secrets digested once, at start-up (static tokens, on every request).
 * Answers the index of the matching secret (every one is compared, so the time tells nothing).
 */
function matchingDigest(given: string, expected: readonly Buffer[]): number | undefined {
  const candidate = digest(given);
  let found: number | undefined;
  expected.forEach((secret, index) => {
    if (timingSafeEqual(candidate, secret) && found === undefined) found = index;
  });
  return found;
}

/**
 * Who sent a request, for its log lines: `token[i]` (the i-th of WEBHOOK_TOKENS), `hmac`,
 * `serviceaccount:<ns>:<name>` or `anonymous`; never a credential.
 */
function noteSender(request: FastifyRequest, sender: string): void {
  (request.log as Logger).setBindings({ sender });
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

function validSignature(secret: string, raw: Buffer | undefined, header: unknown): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = `sha256=${createHmac('sha256', secret)
    .update(raw ?? Buffer.alloc(0))
    .digest('hex')}`;
  return safeEqual(header.toLowerCase(), expected);
}

async function reviewedServiceAccount(
  kube: KubeGateway,
  token: string,
  audience: string,
): Promise<string | undefined> {
  const review = await kube.reviewToken(token, audience);
  const match = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(review.username ?? '');
  return review.authenticated && match ? `${match[1]}:${match[2]}` : undefined;
}

export type Authenticate = (request: FastifyRequest) => Promise<void>;

/** Static token or body signature: cheap checks that need no API call. Answers the sender. */
function staticallyAllowed(
  auth: AuthConfig & { tokenDigests: readonly Buffer[] },
  request: FastifyRequest,
  token: string | undefined,
): string | undefined {
  const index = token === undefined ? undefined : matchingDigest(token, auth.tokenDigests);
  if (index !== undefined) return `token[${index}]`;
  const signature = request.headers['x-signature-256'];
  const signed =
    auth.hmacSecret !== undefined && validSignature(auth.hmacSecret, request.rawBody, signature);
  return signed ? 'hmac' : undefined;
}

async function checkToken(
  auth: AuthConfig,
  kube: KubeGateway,
  token: string | undefined,
): Promise<string | undefined> {
  if (token === undefined || auth.tokenReviewAudience === undefined) return undefined;
  const account = await reviewedServiceAccount(kube, token, auth.tokenReviewAudience);
  if (account !== undefined && auth.allowedServiceAccounts.includes(account)) {
    return `serviceaccount:${account}`;
  }
  if (account !== undefined) {
    throw new HttpProblem(
      403,
      'forbidden',
      `Service account ${account} is not allowed to send events.`,
    );
  }
  return undefined;
}

function refuse(request: FastifyRequest, token: string | undefined): HttpProblem {
  const given = token !== undefined || request.headers['x-signature-256'] !== undefined;
  return unauthorized(
    given
      ? 'The credentials are not valid.'
      : 'Credentials are required: send a bearer token or a signature.',
  );
}

/** The two moments a request is authenticated: before its body is read, and after. */
export interface AuthHooks {
  /** Decides whatever needs no body (tokens, TokenReview, missing credentials) before parsing. */
  beforeBody: Authenticate;
  /** Decides the rest (an HMAC signature over the raw body). */
  afterBody: Authenticate;
}

/**
 * Lets a request through when any configured mode accepts it: a static bearer token, an
 * HMAC-SHA256 signature of the raw body, or a service-account token validated by TokenReview and
 * on the allow-list (403 when valid but not allowed). Everything that can be decided without the
 * body is decided before it is read, so an unauthenticated caller cannot make the server parse it.
 */
export function createAuthenticator(config: AuthConfig, kube: KubeGateway): AuthHooks {
  const auth = { ...config, tokenDigests: config.tokens.map(digest) };
  const admitted = new WeakSet<FastifyRequest>();
  const beforeBody: Authenticate = async (request) => {
    const token = bearer(request);
    const sender =
      (auth.none ? 'anonymous' : undefined) ??
      staticallyAllowed(auth, request, token) ??
      (await checkToken(auth, kube, token));
    if (sender !== undefined) {
      noteSender(request, sender);
      admitted.add(request);
      return;
    }
    const signature = request.headers['x-signature-256'];
    if (auth.hmacSecret === undefined || signature === undefined) throw refuse(request, token);
  };
  const afterBody: Authenticate = async (request) => {
    if (admitted.has(request)) return;
    const sender = staticallyAllowed(auth, request, bearer(request));
    if (sender === undefined) throw refuse(request, bearer(request));
    noteSender(request, sender);
  };
  return { beforeBody, afterBody };
}
