import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKEN } from '../../src/sim/kubeconfig.js';
import {
  projectedToken,
  registerServiceAccount,
  tokenReviewEnv,
} from '../support/service-accounts.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

/** Server-side apply straight to the simulator as another field manager (what Argo CD does). */
async function applyAs(h: Harness, manager: string, body: any, force = false) {
  const { namespace, name } = body.metadata;
  const url = `${h.sim.url}/apis/internal.gloo.solo.io/v2/namespaces/${namespace}/podbouncedirectives/${name}?fieldManager=${manager}${force ? '&force=true' : ''}`;
  const response = await fetch(url, {
    method: 'PATCH',
    headers: {
      'content-type': 'application/apply-patch+yaml',
      authorization: `Bearer ${SIM_TOKEN}`,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('inline directives by server-side apply without force', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('inline-apply', { worker: false });
  });
  afterAll(async () => h.close());

  const owned = directive('bookinfo', 'owned', [
    { namespace: 'bookinfo', labels: { app: 'reviews' } },
  ]);

  it('the simulator answers a conflicting apply 409 with causes naming field and manager', async () => {
    expect((await applyAs(h, 'argocd', owned)).status).toBe(201);
    const changed = directive('bookinfo', 'owned', [{ namespace: 'bookinfo' }]);
    const refused = await applyAs(h, 'someone', changed);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(refused.body.details.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "argocd" using internal.gloo.solo.io/v2',
        field: '.spec.podsToBounce',
      },
    ]);
    // The same values are shared, not a conflict; force takes the fields over.
    expect((await applyAs(h, 'someone', owned)).status).toBe(200);
    expect((await applyAs(h, 'someone', changed, true)).status).toBe(200);
    expect((await applyAs(h, 'argocd', owned)).status).toBe(409);
    expect((await applyAs(h, 'argocd', owned, true)).status).toBe(200);
  });

  it('an inline event for a directive another manager owns is 409 and changes nothing', async () => {
    const before = h.sim.getDirective('bookinfo', 'owned')!;
    const inline = directive('bookinfo', 'owned', [
      { namespace: 'bookinfo', labels: { app: 'ratings' } },
    ]);
    const answer = await h.post({ directive: inline });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('conflict');
    expect(answer.body.message).toMatch(/conflict with "argocd".*\.spec\.podsToBounce/);
    const after = h.sim.getDirective('bookinfo', 'owned')!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec).toEqual(before.spec);
    expect(await h.serve.queue.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0 });
  });

  it('an inline event for a directive the same credential applied updates it', async () => {
    const mine = directive('bookinfo', 'mine', [{ namespace: 'bookinfo' }]);
    expect((await h.post({ directive: mine })).status).toBe(202);
    const updated = directive('bookinfo', 'mine', [{ namespace: 'bookinfo', labels: { a: 'b' } }]);
    const answer = await h.post({ directive: updated });
    expect(answer.status).toBe(202);
    expect(answer.body.generation).toBe(2);
  });
});

describe('a field manager per credential', () => {
  const ISSUER = 'issuer-token-5d1c8e2f9a7b3c60';
  const CI = 'ci-token-0a9b8c7d6e5f4a3b2c1d';
  const SA_TOKEN = projectedToken('certs:issuer');
  const HMAC_SECRET = 'hmac-secret-4f3e2d1c0b9a';
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('inline-managers', {
      worker: false,
      env: {
        WEBHOOK_TOKENS: `issuer=${ISSUER},ci=${CI}`,
        WEBHOOK_HMAC_SECRET: HMAC_SECRET,
        ...tokenReviewEnv('certs:issuer'),
      },
    });
    registerServiceAccount(h, SA_TOKEN, 'certs:issuer');
  });
  afterAll(async () => h.close());

  const selectors = (app: string) => [{ namespace: 'bookinfo', labels: { app } }];

  /** The ci token's apply of a changed spec: refused, naming the owner, and nothing changes. */
  async function refusedForCi(name: string, owner: string): Promise<void> {
    // The accepted run's PENDING follows its 202 (no worker here): nothing else writes after it.
    const before = await waitForState(h, 'bookinfo', name, 'PENDING');
    const answer = await h.post(
      { directive: directive('bookinfo', name, selectors('ratings')) },
      { token: CI },
    );
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('conflict');
    expect(answer.body.message).toContain(`conflict with "${owner}"`);
    const after = h.sim.getDirective('bookinfo', name)!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec).toEqual(before.spec);
  }

  it("refuses another credential's change to a directive one credential applied (409), and lets its own through", async () => {
    const created = directive('bookinfo', 'by-issuer', selectors('reviews'));
    const first = await h.post({ directive: created }, { token: ISSUER });
    expect(first.status).toBe(202);
    await refusedForCi('by-issuer', 'pod-bouncer-issuer');
    const changed = directive('bookinfo', 'by-issuer', selectors('ratings'));
    const own = await h.post({ directive: changed }, { token: ISSUER });
    expect(own.status).toBe(202);
    expect(own.body.generation).toBe(2);
    // The spec as it is changes nothing, so it meets no conflict: another credential's repeat of
    // it is a duplicate (server-side apply then shares the fields' ownership, as Kubernetes does).
    const queued = await h.serve.queue.getJobCounts();
    const repeat = await h.post({ directive: changed }, { token: CI });
    expect(repeat.status).toBe(202);
    expect(repeat.body.duplicate).toBe(true);
    expect(await h.serve.queue.getJobCounts()).toEqual(queued);
  });

  it('names the manager pod-bouncer-<name>, ":" written as ".", for service accounts and signatures', async () => {
    const bySa = directive('bookinfo', 'by-sa', selectors('reviews'));
    expect((await h.post({ directive: bySa }, { token: SA_TOKEN })).status).toBe(202);
    await refusedForCi('by-sa', 'pod-bouncer-certs.issuer');

    const raw = JSON.stringify({
      directive: directive('bookinfo', 'by-hmac', selectors('reviews')),
    });
    const signature = `sha256=${createHmac('sha256', HMAC_SECRET).update(raw).digest('hex')}`;
    const signed = await h.post(undefined, {
      token: null,
      raw,
      headers: { 'x-signature-256': signature },
    });
    expect(signed.status).toBe(202);
    await refusedForCi('by-hmac', 'pod-bouncer-hmac');
  });
});
