import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abortKey } from '../../src/queue/names.js';
import {
  ALL_AT_ONCE,
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const ISSUER = 'issuer-token-5e4d3c2b1a09f8e7';
const CI = 'ci-token-0a9b8c7d6e5f4a3b';
const PAUSED = 'pod-bouncer.io/paused';

/**
 * The directive routes hold a credential to every namespace the directive touches (DESIGN §2,
 * §3), not only the one it lives in: `ci` may go to apps alone, and `apps/reaching` lives in apps
 * but bounces bookinfo. Every route answers 403 before any effect, while an issuer (every allowed
 * namespace) runs it; a directive wholly within apps stays `ci`'s to control.
 */
describe('the directive routes of a directive whose selectors leave the credential', () => {
  let h: Harness;
  let abort = '';

  const call = async (method: string, path: string, token: string) => {
    const response = await fetch(`${h.serve.url}/v1/directives/${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  const refused = async (method: string, path: string) => {
    const answer = await call(method, path, CI);
    expect(answer.status).toBe(403);
    // The namespace named, and nothing of the directive shown (its status names bookinfo's pods).
    expect(answer.body).toEqual({
      error: 'forbidden',
      message: expect.stringContaining(
        'namespace "bookinfo" is not in CREDENTIAL_NAMESPACES for ci',
      ),
    });
  };

  /** Deletions and evictions of bookinfo's pods so far. */
  const disruptions = () =>
    h.sim
      .requests()
      .filter((r) => r.namespace === 'bookinfo' && r.resource === 'pods')
      .filter((r) => r.method === 'DELETE' || r.subresource === 'eviction').length;

  const annotations = (name: string) =>
    (h.sim.getDirective('apps', name) as any).metadata.annotations ?? {};

  beforeAll(async () => {
    h = await startHarness('credential-routes', {
      env: {
        ...ALL_AT_ONCE,
        WEBHOOK_TOKENS: `issuer=${ISSUER},ci=${CI}`,
        ALLOWED_NAMESPACES: 'istio-system,bookinfo,apps',
        CREDENTIAL_NAMESPACES: 'ci=apps',
        // The run waits for replacements that never become Ready: only an abort ends it.
        READINESS_TIMEOUT_SECONDS: '120',
      },
    });
    h.sim.addWorkload({
      namespace: 'bookinfo',
      name: 'stuck',
      kind: 'ReplicaSet',
      labels: { app: 'stuck' },
      replicas: 2,
      readinessDelayMs: null,
    });
    h.sim.applyDirective(
      directive('apps', 'reaching', [
        { namespace: 'bookinfo', labels: { app: 'stuck' }, waitForReplicas: 2 },
        { namespace: 'bookinfo', labels: { app: 'stuck' } },
      ]),
    );
    h.sim.applyDirective(directive('apps', 'own', [{ namespace: 'apps', labels: { app: 'x' } }]));
    // Later than every pod's creation, so that each is chosen.
    const issuedAt = new Date(Date.now() + 60_000).toISOString();
    const accepted = await h.post(
      { directive: { namespace: 'apps', name: 'reaching' }, issuedAt },
      { token: ISSUER },
    );
    expect(accepted.status).toBe(202);
    const { uid, generation } = accepted.body;
    abort = abortKey(h.prefix, uid, generation, String(Date.parse(accepted.body.issuedAt)));
    await eventually('the first batch', () => (disruptions() === 2 ? true : undefined));
  });
  afterAll(async () => h.close());

  it('refuses GET and abort of the run in progress, and it goes on', async () => {
    await refused('GET', 'apps/reaching');
    await refused('POST', 'apps/reaching/abort');
    expect(await h.serve.redis.exists(abort)).toBe(0);
    const view = await call('GET', 'apps/reaching', ISSUER);
    expect(view.status).toBe(200);
    expect(view.body.inProgress).toBe(true);
  });

  it('refuses pause and resume: the annotation stays as the issuer left it', async () => {
    await refused('POST', 'apps/reaching/pause');
    expect(annotations('reaching')[PAUSED]).toBeUndefined();
    expect((await call('POST', 'apps/reaching/pause', ISSUER)).status).toBe(200);
    await refused('POST', 'apps/reaching/resume');
    expect(annotations('reaching')[PAUSED]).toBe('true');
  });

  it('refuses retry of the failed run: the abort stays, the job stays failed', async () => {
    expect((await call('POST', 'apps/reaching/abort', ISSUER)).status).toBe(202);
    await waitForState(h, 'apps', 'reaching', 'FAILED', 30_000);
    await eventually('the job to fail', async () => {
      const jobs = (await call('GET', 'apps/reaching', ISSUER)).body.jobs;
      return jobs[0]?.state === 'failed' ? true : undefined;
    });
    await refused('POST', 'apps/reaching/retry');
    // A retry withdraws the abort request first: it is still there.
    expect(await h.serve.redis.exists(abort)).toBe(1);
    const jobs = (await call('GET', 'apps/reaching', ISSUER)).body.jobs;
    expect(jobs.map((job: any) => job.state)).toEqual(['failed', 'waiting-children']);
    // No pod of bookinfo was bounced after the first batch.
    expect(disruptions()).toBe(2);
  });

  it("leaves a directive wholly within the credential's namespaces to it", async () => {
    expect((await call('GET', 'apps/own', CI)).status).toBe(200);
    expect((await call('POST', 'apps/own/pause', CI)).body.paused).toBe(true);
    expect(annotations('own')[PAUSED]).toBe('true');
    expect((await call('POST', 'apps/own/resume', CI)).body.paused).toBe(false);
    expect((await call('POST', 'apps/own/abort', CI)).status).toBe(409);
  });
});
