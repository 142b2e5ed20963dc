import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  projectedToken,
  registerServiceAccount,
  tokenReviewEnv,
} from '../support/service-accounts.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';
import { rootCertSync } from '../support/root-cert.js';
import { callDirectiveRoutes } from '../support/routers.js';
import { addApps } from '../support/workloads.js';

const ISSUER = 'issuer-token-8c1d2e3f4a5b6c7d';
const CI = 'ci-token-1f2e3d4c5b6a7980';
const SA_TOKEN = projectedToken('certs:issuer');
const HMAC_SECRET = 'hmac-secret-6b5a4c3d2e1f';
const EMPTY = { active: 0, completed: 0, delayed: 0, failed: 0, waiting: 0 };

/**
 * CREDENTIAL_NAMESPACES narrows ALLOWED_NAMESPACES per credential (DESIGN §2): a listed credential
 * touches only its namespaces, in every shape, inline or referenced, dry runs and the directive
 * routes included; one not listed has ALLOWED_NAMESPACES.
 */
describe('what each credential may do (CREDENTIAL_NAMESPACES)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('credential-namespaces', {
      worker: false,
      env: {
        WEBHOOK_TOKENS: `issuer=${ISSUER},ci=${CI}`,
        WEBHOOK_HMAC_SECRET: HMAC_SECRET,
        ...tokenReviewEnv('certs:issuer'),
        ALLOWED_NAMESPACES: 'istio-system,bookinfo,apps',
        CREDENTIAL_NAMESPACES: 'ci=apps,certs:issuer=istio-system|bookinfo,hmac=apps',
      },
    });
    registerServiceAccount(h, SA_TOKEN, 'certs:issuer');
    for (const namespace of ['bookinfo', 'apps']) {
      addApps(h, namespace, ['app'], { replicas: 1 });
    }
    h.sim.applyDirective(directive('bookinfo', 'certs', [{ namespace: 'bookinfo' }]));
    // Lives in apps, where ci may go, but bounces bookinfo, where it may not.
    h.sim.applyDirective(directive('apps', 'reaching', [{ namespace: 'bookinfo' }]));
  });
  afterAll(async () => h.close());

  const send = (body: unknown, token: string, query = '') =>
    fetch(`${h.serve.url}/v1/events${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as any,
    }));

  const refusedFor = (answer: { status: number; body: any }, namespace: string, who: string) => {
    expect(answer.status).toBe(403);
    expect(answer.body.error).toBe('forbidden');
    expect(answer.body.message).toContain(
      `namespace "${namespace}" is not in CREDENTIAL_NAMESPACES for ${who}`,
    );
  };

  it('confines a listed credential to its namespaces, inline or by reference, before any API call', async () => {
    h.sim.resetRequests();
    refusedFor(
      await send({ directive: { namespace: 'bookinfo', name: 'certs' } }, CI),
      'bookinfo',
      'ci',
    );
    // Its own namespace, but a selector elsewhere: the spec is checked once read.
    refusedFor(
      await send({ directive: { namespace: 'apps', name: 'reaching' } }, CI),
      'bookinfo',
      'ci',
    );
    const inline = directive('apps', 'inline-reaching', [{ namespace: 'bookinfo' }]);
    refusedFor(await send({ directive: inline }, CI), 'bookinfo', 'ci');
    const secretElsewhere = directive('apps', 'inline-secret', [
      { namespace: 'apps', rootCertSync: rootCertSync('istio-system', 'apps') },
    ]);
    refusedFor(await send({ directive: secretElsewhere }, CI), 'istio-system', 'ci');
    expect(h.sim.getDirective('apps', 'inline-reaching')).toBeUndefined();
    expect(h.sim.getDirective('apps', 'inline-secret')).toBeUndefined();
    // Nothing was read where ci may not go.
    const elsewhere = h.sim.requests().filter((r) => !r.path.includes('/namespaces/apps/'));
    expect(elsewhere.filter((r) => r.path.includes('/namespaces/'))).toEqual([]);
    expect(await h.serve.queue.getJobCounts()).toMatchObject(EMPTY);

    const own = directive('apps', 'own', [{ namespace: 'apps', labels: { app: 'app' } }]);
    expect((await send({ directive: own }, CI)).status).toBe(202);
  });

  it('leaves a credential it does not list ALLOWED_NAMESPACES', async () => {
    const answer = await send({ directive: { namespace: 'bookinfo', name: 'certs' } }, ISSUER);
    expect(answer.status).toBe(202);
    const outside = directive('kube-system', 'x', [{ namespace: 'kube-system' }]);
    const refused = await send({ directive: outside }, ISSUER);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('"kube-system" is not in ALLOWED_NAMESPACES');
  });

  it('keys on the names of service accounts (ns:name) and signature schemes (hmac)', async () => {
    refusedFor(
      await send({ directive: { namespace: 'apps', name: 'own' } }, SA_TOKEN),
      'apps',
      'certs:issuer',
    );
    const raw = JSON.stringify({ directive: { namespace: 'bookinfo', name: 'certs' } });
    const signature = `sha256=${createHmac('sha256', HMAC_SECRET).update(raw).digest('hex')}`;
    const signed = await h.post(undefined, {
      token: null,
      raw,
      headers: { 'x-signature-256': signature },
    });
    refusedFor(signed, 'bookinfo', 'hmac');
  });

  it('confines the directive routes: GET, retry, pause, resume, abort (403, nothing read or changed)', async () => {
    // The runs accepted above are told (a status write and an Event each) a moment after their
    // 202, on their own time: once that is done, what the API server serves is the routes' doing.
    const told = (namespace: string, name: string): boolean =>
      h.sim
        .requests()
        .some((r) => r.subresource === 'status' && r.namespace === namespace && r.name === name) &&
      h.sim
        .events()
        .some(
          (e: any) => e.involvedObject?.namespace === namespace && e.involvedObject?.name === name,
        );
    await eventually('the accepted runs told', () =>
      told('apps', 'own') && told('bookinfo', 'certs') ? true : undefined,
    );
    const { answers, served } = await callDirectiveRoutes(h, 'bookinfo', 'certs', CI);
    for (const answer of answers) refusedFor(answer, 'bookinfo', 'ci');
    // Watch streams the server keeps open may be re-opened at any time; no route opens one.
    expect(served.filter((r) => !r.watch).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(h.sim.getDirective('bookinfo', 'certs')?.metadata.annotations).toBeUndefined();
    const read = await fetch(`${h.serve.url}/v1/directives/bookinfo/certs`, {
      headers: { authorization: `Bearer ${ISSUER}` },
    });
    expect(read.status).toBe(200);
  });

  it("reveals whether a Secret exists only within the credential's namespaces (dry runs)", async () => {
    // istio-system has no Secret cacerts: a plan that looked would warn secret-missing.
    const outside = directive('apps', 'plan-outside', [
      { namespace: 'apps', rootCertSync: rootCertSync('istio-system', 'apps') },
    ]);
    const refused = await send({ directive: outside }, CI, '?dryRun=true');
    refusedFor(refused, 'istio-system', 'ci');
    expect(JSON.stringify(refused.body)).not.toContain('secret-missing');
    h.sim.applyDirective(outside);
    refusedFor(
      await send({ directive: { namespace: 'apps', name: 'plan-outside' } }, CI, '?dryRun=true'),
      'istio-system',
      'ci',
    );

    const inside = directive('apps', 'plan-inside', [
      { namespace: 'apps', rootCertSync: rootCertSync('apps', 'apps') },
    ]);
    const planned = await send({ directive: inside }, CI, '?dryRun=true');
    expect(planned.status).toBe(200);
    expect(planned.body.selectors[0].warnings.map((w: any) => w.code)).toContain('secret-missing');
    // The issuer has ALLOWED_NAMESPACES, istio-system among them: it may ask.
    const issuers = await send({ directive: outside }, ISSUER, '?dryRun=true');
    expect(issuers.status).toBe(200);
    expect(issuers.body.selectors[0].warnings.map((w: any) => w.code)).toContain('secret-missing');
  });
});
