import { describe, expect, it } from 'vitest';
import { TransientError } from '../../src/errors.js';
import type { TokenReviewAnswer } from '../../src/kube/token-review.js';
import { TokenVerdicts, verdictOf } from '../../src/ingress/token-verdicts.js';

const AUDIENCE = 'pod-bouncer';
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
  const counting = (answer: TokenReviewAnswer | undefined = valid) => {
    const asked: string[] = [];
    const review = async (token: string) => {
      asked.push(token);
      return answer;
    };
    return { asked, review };
  };

  it('keeps the verdict for its TTL, refusals included, and asks again after it', async () => {
    const { asked, review } = counting({ ...valid, authenticated: false });
    const verdicts = new TokenVerdicts(review, AUDIENCE, { negativeTtlMs: 50 });
    await verdicts.verdict('t');
    await verdicts.verdict('t');
    expect(asked).toEqual(['t']);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await verdicts.verdict('t');
    expect(asked).toEqual(['t', 't']);
  });

  it('shares one review among concurrent requests with the same token', async () => {
    const { asked, review } = counting();
    const verdicts = new TokenVerdicts(review, AUDIENCE);
    await Promise.all(Array.from({ length: 20 }, () => verdicts.verdict('same')));
    expect(asked).toEqual(['same']);
  });

  it('forgets the oldest verdict when full', async () => {
    const { asked, review } = counting();
    const verdicts = new TokenVerdicts(review, AUDIENCE, { maxEntries: 2 });
    for (const token of ['a', 'b', 'c', 'b', 'c', 'a']) await verdicts.verdict(token);
    expect(asked).toEqual(['a', 'b', 'c', 'a']);
  });

  it('answers a retryable error when the review budget is spent, and caches nothing', async () => {
    const asked: string[] = [];
    const overBudget = async (token: string): Promise<undefined> => {
      asked.push(token);
      return undefined;
    };
    const verdicts = new TokenVerdicts(overBudget, AUDIENCE);
    await expect(verdicts.verdict('x')).rejects.toBeInstanceOf(TransientError);
    await expect(verdicts.verdict('x')).rejects.toBeInstanceOf(TransientError);
    expect(asked).toEqual(['x', 'x']);
  });
});
