import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AuthConfig } from '../config.js';
import type { KubeGateway } from '../kube/gateway.js';
import { HttpProblem } from './http-errors.js';

/** Constant-time equality that does not leak the length of the secret either. */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
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

/** Static token or body signature: cheap checks that need no API call. */
function staticallyAllowed(
  auth: AuthConfig,
  request: FastifyRequest,
  token: string | undefined,
): boolean {
  if (token !== undefined && auth.tokens.some((expected) => safeEqual(token, expected)))
    return true;
  const signature = request.headers['x-signature-256'];
  return (
    auth.hmacSecret !== undefined && validSignature(auth.hmacSecret, request.rawBody, signature)
  );
}

/**
 * Returns a hook that lets a request through when any configured mode accepts it: a static bearer
 * token, an HMAC-SHA256 signature of the raw body, or a service-account token validated by
 * TokenReview and on the allow-list (403 when valid but not allowed).
 */
export function createAuthenticator(auth: AuthConfig, kube: KubeGateway): Authenticate {
  return async (request: FastifyRequest): Promise<void> => {
    if (auth.none) return;
    const token = bearer(request);
    if (staticallyAllowed(auth, request, token)) return;
    if (token !== undefined && auth.tokenReviewAudience !== undefined) {
      const account = await reviewedServiceAccount(kube, token, auth.tokenReviewAudience);
      if (account !== undefined && auth.allowedServiceAccounts.includes(account)) return;
      if (account !== undefined) {
        throw new HttpProblem(
          403,
          'forbidden',
          `Service account ${account} is not allowed to send events.`,
        );
      }
    }
    const given = token !== undefined || request.headers['x-signature-256'] !== undefined;
    throw unauthorized(
      given
        ? 'The credentials are not valid.'
        : 'Credentials are required: send a bearer token or a signature.',
    );
  };
}
