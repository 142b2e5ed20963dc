import { describe, expect, it } from 'vitest';
import { TransientError } from '../../src/errors.js';
import type { TokenReviewAnswer } from '../../src/kube/token-review.js';
import { readClaims } from '../../src/ingress/token-claims.js';
import { TokenVerdicts, verdictOf } from '../../src/ingress/token-verdicts.js';
import type { ReviewLane } from '../../src/kube/token-review.js';
import { serviceAccountJwt } from '../../src/sim/service-account-token.js';

const AUDIENCE = 'pod-bouncer';
/** Well-formed tokens of the issuer's service account, one per name, minted once. */
const minted = new Map<string, string>();
const jwt = (name: string): string => {
  if (!minted.has(name)) {
    minted.set(
      name,
      serviceAccountJwt({ namespace: 'cert-manager', name: 'issuer', audiences: [AUDIENCE] }),
    );
  }
  return minted.get(name)!;
};
const valid: TokenReviewAnswer = {
  authenticated: true,
  username: 'system:serviceaccount:cert-manager:issuer',
  audiences: [AUDIENCE],
};

describe('verdictOf', () => {
  it('accepts an authenticated service account whose review lists the audience', () => {
    expect(verdictOf(valid, AUDIENCE)).toEqual({ account: 'cert-manager:issuer' });
  });
  it.each([
    ['not authenticated', { ...valid, authenticated: false }],
    ['another audience', { ...valid, audiences: ['https://kubernetes.default.svc'] }],
    ['no audiences', { ...valid, audiences: [] }],
    ['a user, not a service account', { ...valid, username: 'alice' }],
  ])('refuses %s', (_label, answer) => {
    expect(verdictOf(answer, AUDIENCE)).toEqual({ invalid: true });
  });
});

describe('TokenVerdicts', () => {
  /** A review that records the name of each token it is asked about, and on which lane. */
  const counting = (answer: TokenReviewAnswer | undefined = valid) => {
    const asked: string[] = [];
    const lanes: ReviewLane[] = [];
    const review = async (token: string, _audience: string, lane: ReviewLane) => {
      asked.push([...minted].find(([, given]) => given === token)?.[0] ?? token);
      lanes.push(lane);
      return answer;
    };
    return { asked, lanes, review };
  };

  it('keeps the verdict for its TTL, refusals included, and asks again after it', async () => {
    const { asked, review } = counting({ ...valid, authenticated: false });
    const verdicts = new TokenVerdicts(review, AUDIENCE, { negativeTtlMs: 50 });
    await verdicts.verdict(jwt('t'));
    await verdicts.verdict(jwt('t'));
    expect(asked).toEqual(['t']);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await verdicts.verdict(jwt('t'));
    expect(asked).toEqual(['t', 't']);
  });

  it('shares one review among concurrent requests with the same token', async () => {
    const { asked, review } = counting();
    const verdicts = new TokenVerdicts(review, AUDIENCE);
    await Promise.all(Array.from({ length: 20 }, () => verdicts.verdict(jwt('same'))));
    expect(asked).toEqual(['same']);
  });

  it('forgets the oldest verdict when full', async () => {
    const { asked, review } = counting();
    const verdicts = new TokenVerdicts(review, AUDIENCE, { maxEntries: 2 });
    for (const name of ['a', 'b', 'c', 'b', 'c', 'a']) await verdicts.verdict(jwt(name));
    expect(asked).toEqual(['a', 'b', 'c', 'a']);
  });

  it('answers a retryable error when the review budget is spent, and caches nothing', async () => {
    const asked: string[] = [];
    const overBudget = async (token: string): Promise<undefined> => {
      asked.push(token);
      return undefined;
    };
    const verdicts = new TokenVerdicts(overBudget, AUDIENCE);
    await expect(verdicts.verdict(jwt('x'))).rejects.toBeInstanceOf(TransientError);
    await expect(verdicts.verdict(jwt('x'))).rejects.toBeInstanceOf(TransientError);
    expect(asked).toEqual([jwt('x'), jwt('x')]);
  });

  it('asks nothing about a token that is not a service-account JWT for the audience', async () => {
    const { asked, review } = counting();
    const verdicts = new TokenVerdicts(review, AUDIENCE);
    const otherAudience = serviceAccountJwt({
      namespace: 'cert-manager',
      name: 'issuer',
      audiences: ['https://kubernetes.default.svc'],
    });
    for (const token of ['junk', 'a.b.c', otherAudience]) {
      expect(await verdicts.verdict(token)).toEqual({ invalid: true });
    }
    expect(asked).toEqual([]);
  });

  it('renews a known-good token on its own lane, which a flood of forged ones cannot spend', async () => {
    // The allowed lane is spent (a flood of forged tokens naming the allowed account); the
    // renewal lane is not.
    const lanes: ReviewLane[] = [];
    let allowedLeft = 1;
    const review = async (_token: string, _audience: string, lane: ReviewLane) => {
      lanes.push(lane);
      if (lane === 'renewal') return valid;
      if (allowedLeft === 0) return undefined;
      allowedLeft -= 1;
      return valid;
    };
    const verdicts = new TokenVerdicts(review, AUDIENCE, { ttlMs: 20 });
    const known = jwt('known');
    expect(await verdicts.verdict(known)).toEqual({ account: 'cert-manager:issuer' });
    const forged = serviceAccountJwt({
      namespace: 'cert-manager',
      name: 'issuer',
      audiences: [AUDIENCE],
    });
    await expect(verdicts.verdict(forged)).rejects.toBeInstanceOf(TransientError);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Its verdict expired: renewed on the renewal lane, admitted although the allowed lane is dry.
    expect(await verdicts.verdict(known)).toEqual({ account: 'cert-manager:issuer' });
    expect(lanes).toEqual(['allowed', 'allowed', 'renewal']);
  });

  it('a known-good token whose renewal says invalid is refused from then on', async () => {
    let answer: TokenReviewAnswer = valid;
    const review = async () => answer;
    const verdicts = new TokenVerdicts(review, AUDIENCE, { ttlMs: 20 });
    const revoked = jwt('revoked');
    expect(await verdicts.verdict(revoked)).toEqual({ account: 'cert-manager:issuer' });
    answer = { ...valid, authenticated: false };
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await verdicts.verdict(revoked)).toEqual({ invalid: true });
  });

  it('reviews tokens naming an allowed account on their lane, the others on theirs', async () => {
    const { lanes, review } = counting();
    const verdicts = new TokenVerdicts(review, AUDIENCE, {
      allowedAccounts: ['cert-manager:issuer'],
    });
    await verdicts.verdict(jwt('allowed'));
    await verdicts.verdict(
      serviceAccountJwt({ namespace: 'default', name: 'intruder', audiences: [AUDIENCE] }),
    );
    expect(lanes).toEqual(['allowed', 'other']);
  });
});

describe('readClaims', () => {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const token = (claims: object, header: object = { alg: 'RS256' }): string =>
    `${part(header)}.${part(claims)}.c2lnbmF0dXJl`;
  const now = Date.parse('2026-12-02T12:00:00Z');
  const seconds = now / 1000;
  const good = { sub: 'system:serviceaccount:ns:sa', aud: [AUDIENCE], exp: seconds + 600 };

  it('reads the account and audiences of a projected service-account token', () => {
    expect(readClaims(token(good), now)).toEqual({ account: 'ns:sa', audiences: [AUDIENCE] });
    expect(readClaims(token({ ...good, aud: AUDIENCE }), now)?.audiences).toEqual([AUDIENCE]);
  });

  it.each([
    ['not three segments', 'abc.def'],
    ['an empty signature', `${part({ alg: 'RS256' })}.${part(good)}.`],
    ['an unsigned token', token(good, { alg: 'none' })],
    ['a header that is not JSON', `bm90IGpzb24.${part(good)}.c2ln`],
    ['claims that are not an object', `${part({ alg: 'RS256' })}.${part([1])}.c2ln`],
    ['a user, not a service account', token({ ...good, sub: 'alice' })],
    ['no audience', token({ ...good, aud: undefined })],
    ['no expiry', token({ ...good, exp: undefined })],
    ['an expiry past the leeway', token({ ...good, exp: seconds - 61 })],
    ['a not-before to come', token({ ...good, nbf: seconds + 120 })],
    ['a token longer than any projected one', token({ ...good, pad: 'x'.repeat(9000) })],
  ])('refuses %s', (_what, given) => {
    expect(readClaims(given, now)).toBeUndefined();
  });
});
