import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_REVIEW_BUDGET } from '../../src/kube/token-review.js';
import { directive, startHarness, type Harness } from '../support/harness.js';

const AUDIENCE = 'pod-bouncer';
const ALLOWED = 'sa-token-allowed-5e2a';
const LOOSE = 'sa-token-loose-audience-77c1';

describe('TokenReview: verdicts cached by token digest, reviews on a budget of their own', () => {
  let h: Harness;
  const ref = JSON.stringify({ directive: { namespace: 'trns', name: 'certs' } });
  const send = (token: string) =>
    fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: ref,
    });
  const reviews = (): number =>
    h.sim.requests().filter((request) => request.resource === 'tokenreviews').length;

  beforeAll(async () => {
    h = await startHarness('tokenreview', {
      worker: false,
      env: {
        WEBHOOK_TOKENS: '',
        WEBHOOK_TOKENREVIEW_AUDIENCE: AUDIENCE,
        WEBHOOK_ALLOWED_SERVICEACCOUNTS: 'cert-manager:issuer',
      },
    });
    h.sim.registerToken(ALLOWED, {
      username: 'system:serviceaccount:cert-manager:issuer',
      audiences: [AUDIENCE],
    });
    // An authenticator that vouches for the token whatever audience is asked for.
    h.sim.registerToken(LOOSE, {
      username: 'system:serviceaccount:cert-manager:issuer',
      reviewAudiences: ['https://kubernetes.default.svc'],
    });
    h.sim.applyDirective(directive('trns', 'certs', [{ namespace: 'trns', labels: {} }]));
  });
  afterAll(async () => h.close());

  it('costs one TokenReview for N requests with the same junk token, concurrent or not', async () => {
    h.sim.resetRequests();
    const concurrent = await Promise.all(Array.from({ length: 30 }, () => send('junk-token-1')));
    for (let i = 0; i < 20; i += 1) expect((await send('junk-token-1')).status).toBe(401);
    expect(concurrent.map((answer) => answer.status)).toEqual(Array(30).fill(401));
    expect(reviews()).toBe(1);
  });

  it('caches a valid verdict too: the allowed token is reviewed once', async () => {
    h.sim.resetRequests();
    for (let i = 0; i < 10; i += 1) expect((await send(ALLOWED)).status).toBe(200);
    expect(reviews()).toBe(1);
  });

  it('costs at most the budget for M distinct junk tokens; the rest wait for a 503', async () => {
    h.sim.resetRequests();
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => send(`distinct-junk-${i}`)),
    );
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

  it('refuses a token whose review does not list the audience (401)', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000)); // let the budget refill a little
    const answer = await send(LOOSE);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ error: 'unauthorized' });
  });
});
