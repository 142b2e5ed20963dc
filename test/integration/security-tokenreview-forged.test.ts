import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogCapture } from '../support/log-capture.js';
import type { Harness } from '../support/harness.js';
import {
  AUDIENCE,
  dryRunWith,
  projectedToken,
  registerServiceAccount,
  startTokenReviewHarness,
  tokenReviews,
} from '../support/service-accounts.js';

const ACCOUNT = { namespace: 'cert-manager', name: 'issuer' };
const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * What a stranger can write without any credential: a JWT whose claims name the allowed account
 * and our audience, well-formed and unexpired, with the simulator's `kid`, and a signature of
 * random bytes.
 */
function forged(): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', kid: 'pod-bouncer-sim' };
  const claims = {
    aud: [AUDIENCE],
    exp: now + 3600,
    iat: now,
    nbf: now,
    iss: 'https://kubernetes.default.svc.cluster.local',
    jti: randomUUID(),
    sub: `system:serviceaccount:${ACCOUNT.namespace}:${ACCOUNT.name}`,
  };
  return `${part(header)}.${part(claims)}.${randomBytes(256).toString('base64url')}`;
}

describe('TokenReview: forged tokens naming an allowed account cost the genuine ones nothing', () => {
  let h: Harness;
  const capture = new LogCapture();
  const send = (token: string) => dryRunWith(h, 'forgedns', token);
  const reviews = (): number => tokenReviews(h);
  /** A genuine token of the allowed account, newly minted and known to the API server. */
  const genuine = (): string => {
    const token = projectedToken('cert-manager:issuer');
    registerServiceAccount(h, token, 'cert-manager:issuer');
    return token;
  };

  beforeAll(async () => {
    h = await startTokenReviewHarness('tokenforged', 'forgedns', capture);
  });
  afterAll(async () => h.close());

  it(
    'admits every new genuine token during a flood of forged ones from one client, and reviews no forgery',
    { timeout: 60_000 },
    async () => {
      h.sim.resetRequests();
      let flooding = true;
      const forgedAnswers = new Map<number, number>();
      // 40 concurrent senders of forged tokens, each sending its next as soon as one is answered.
      const senders = Array.from({ length: 40 }, async () => {
        let sent = 0;
        while (flooding || sent < 10) {
          const { status } = await send(forged());
          forgedAnswers.set(status, (forgedAnswers.get(status) ?? 0) + 1);
          sent += 1;
        }
      });
      // The flood is under way (more than the review budget's burst sent) before the first.
      while ([...forgedAnswers.values()].reduce((sum, n) => sum + n, 0) < 100) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const fresh: number[] = [];
      for (let i = 0; i < 8; i += 1) fresh.push((await send(genuine())).status);
      flooding = false;
      await Promise.all(senders);
      expect(fresh).toEqual(Array(8).fill(200));
      const total = [...forgedAnswers.values()].reduce((sum, n) => sum + n, 0);
      expect(total).toBeGreaterThan(400);
      expect(Object.fromEntries(forgedAnswers)).toEqual({ 401: total });
      // One review per genuine token; none for a forgery.
      expect(reviews()).toBe(8);
    },
  );

  it('fetched the issuer keys once, and warned of nothing', () => {
    const fetches = h.sim.requests().filter((request) => request.path === '/openid/v1/jwks');
    expect(fetches.length).toBe(1);
    const warnings = capture.lines().filter((line) => line.includes('issuer keys'));
    expect(warnings).toEqual([]);
  });
});
