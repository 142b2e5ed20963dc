import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_REVIEW_BUDGET } from '../../src/kube/token-review.js';
import { serviceAccountJwt } from '../../src/sim/index.js';
import { LogCapture } from '../support/log-capture.js';
import type { Harness } from '../support/harness.js';
import {
  AUDIENCE,
  dryRunWith,
  registerServiceAccount,
  startTokenReviewHarness,
  tokenReviews,
} from '../support/service-accounts.js';

const issuer = (audiences = [AUDIENCE], expiresInSeconds?: number): string =>
  serviceAccountJwt({
    namespace: 'cert-manager',
    name: 'issuer',
    audiences,
    ...(expiresInSeconds !== undefined ? { expiresInSeconds } : {}),
  });
const ALLOWED = issuer();
/** Claims our audience; its review says the API server's (an authenticator that ignores them). */
const LOOSE = issuer();
/** A well-formed token of a service account that is not on the allow-list, unknown to the API. */
const stranger = (i: number): string =>
  serviceAccountJwt({ namespace: 'elsewhere', name: `sa-${i}`, audiences: [AUDIENCE] });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('TokenReview: verdicts cached by token digest, reviews on a budget of their own', () => {
  let h: Harness;
  const capture = new LogCapture();
  const send = (token: string) => dryRunWith(h, 'trns', token);
  const reviews = (): number => tokenReviews(h);
  /**
   * Waves of 50 concurrent requests, half junk tokens and half strangers' well-formed ones, until
   * stopped (40 waves at most); `stop` answers how many were sent.
   */
  /**
   * Waves of 50 junk and stranger tokens until stopped, and at least `floor` requests: a slow or
   * busy machine floods as hard, only for longer.
   */
  const flood = (floor = 350): { stop(): Promise<number> } => {
    let flooding = true;
    let sent = 0;
    const waves = (async () => {
      for (let wave = 0; (flooding || sent < floor) && wave < 40; wave += 1) {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) => {
            sent += 1;
            return send(i % 2 === 0 ? `junk-${wave}-${i}` : stranger(wave * 50 + i));
          }),
        );
      }
    })();
    return {
      async stop() {
        flooding = false;
        await waves;
        return sent;
      },
    };
  };
  /** Lets the review budget fill up again after a test that used it. */
  const refill = (): Promise<void> =>
    sleep((TOKEN_REVIEW_BUDGET.burst / TOKEN_REVIEW_BUDGET.qps) * 1000);

  beforeAll(async () => {
    h = await startTokenReviewHarness('tokenreview', 'trns', capture);
    registerServiceAccount(h, ALLOWED, 'cert-manager:issuer');
    h.sim.registerToken(LOOSE, {
      username: 'system:serviceaccount:cert-manager:issuer',
      reviewAudiences: ['https://kubernetes.default.svc'],
    });
  });
  afterAll(async () => h.close());

  it('sends no TokenReview for a token that is not a well-formed, unexpired service-account JWT', async () => {
    h.sim.resetRequests();
    const part = (value: object): string =>
      Buffer.from(JSON.stringify(value)).toString('base64url');
    const [head, , signature] = ALLOWED.split('.');
    const claims = JSON.parse(Buffer.from(ALLOWED.split('.')[1]!, 'base64url').toString());
    const withClaims = (changes: object): string =>
      `${head}.${part({ ...claims, ...changes })}.${signature}`;
    const refused = [
      'junk-token-1',
      'a.b.c',
      `${head}.not-json.${signature}`,
      withClaims({ sub: 'system:admin' }),
      withClaims({ sub: undefined }),
      withClaims({ exp: undefined }),
      issuer([AUDIENCE], -120),
      issuer(['https://kubernetes.default.svc']),
      `${part({ alg: 'none' })}.${ALLOWED.split('.')[1]}.`,
    ];
    for (const token of refused) expect((await send(token)).status, token).toBe(401);
    expect(reviews()).toBe(0);
  });

  it('costs one TokenReview for N requests with the same unknown token, concurrent or not', async () => {
    h.sim.resetRequests();
    const token = stranger(0);
    const concurrent = await Promise.all(Array.from({ length: 30 }, () => send(token)));
    for (let i = 0; i < 20; i += 1) expect((await send(token)).status).toBe(401);
    expect(concurrent.map((answer) => answer.status)).toEqual(Array(30).fill(401));
    expect(reviews()).toBe(1);
  });

  it('caches a valid verdict too: the allowed token is reviewed once', async () => {
    h.sim.resetRequests();
    for (let i = 0; i < 10; i += 1) expect((await send(ALLOWED)).status).toBe(200);
    expect(reviews()).toBe(1);
  });

  it('costs at most the budget for M distinct tokens; the rest wait for a 503', async () => {
    await refill();
    h.sim.resetRequests();
    const started = Date.now();
    // Tokens that name the allowed service account: each one must be asked about.
    const answers = await Promise.all(Array.from({ length: 200 }, () => send(issuer())));
    const seconds = (Date.now() - started) / 1000;
    const budget = TOKEN_REVIEW_BUDGET.burst + Math.ceil(TOKEN_REVIEW_BUDGET.qps * seconds) + 1;
    expect(reviews()).toBeLessThanOrEqual(budget);
    expect(reviews()).toBeLessThan(200);
    const statuses = new Set(answers.map((answer) => answer.status));
    expect([...statuses].every((status) => status === 401 || status === 503)).toBe(true);
    // Over the budget: 503 with the Retry-After of a review refused for now (token-verdicts.ts:
    // one second, about when the budget has a review again).
    const refusedForBudget = answers.filter((answer) => answer.status === 503);
    expect(refusedForBudget.length).toBeGreaterThan(0);
    for (const answer of refusedForBudget) expect(answer.headers.get('retry-after')).toBe('1');
    expect(await refusedForBudget[0]!.json()).toMatchObject({ error: 'unavailable' });
    // The allowed token's cached verdict still admits it during the flood.
    expect((await send(ALLOWED)).status).toBe(200);
  });

  it(
    'admits a valid, allowed token never seen before during a flood of junk and strangers',
    { timeout: 30_000 },
    async () => {
      await refill();
      h.sim.resetRequests();
      const flooding = flood();
      const fresh: number[] = [];
      for (let attempt = 0; attempt < 6; attempt += 1) {
        await sleep(150);
        const token = issuer();
        registerServiceAccount(h, token, 'cert-manager:issuer');
        fresh.push((await send(token)).status);
      }
      expect(await flooding.stop()).toBeGreaterThan(300);
      expect(fresh).toEqual(Array(6).fill(200));
    },
  );

  it(
    'tells a flood of refusals in a line a second at most, at warn, without a stack',
    { timeout: 30_000 },
    async () => {
      await refill();
      const linesBefore = capture.lines().length;
      const started = Date.now();
      const flooding = flood();
      await sleep(1500);
      const sent = await flooding.stop();
      await sleep(1100); // the last second's count is told when it ends
      const seconds = Math.ceil((Date.now() - started) / 1000);
      const lines = capture
        .lines()
        .slice(linesBefore)
        .map((line) => JSON.parse(line) as Record<string, any>);
      expect(sent).toBeGreaterThan(300);
      expect(lines.filter((line) => line.level === 'error')).toEqual([]);
      expect(lines.filter((line) => line.err?.stack !== undefined)).toEqual([]);
      expect(lines.every((line) => line.level === 'warn')).toBe(true);
      expect(lines.length).toBeLessThanOrEqual(seconds + 1);
      // Every refusal is counted in them, none lost.
      expect(lines.reduce((sum, line) => sum + (line.refused ?? 1), 0)).toBe(sent);
    },
  );

  it('refuses a token whose review does not list the audience (401)', async () => {
    await refill();
    const answer = await send(LOOSE);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ error: 'unauthorized' });
  });
});
