import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, type Harness } from '../support/harness.js';
import { postRaw } from '../support/routers.js';

const ROOT_SYNC = {
  secretRef: { name: 'missing-cacerts', namespace: 'istio-system' },
  secretKey: 'root-cert.pem',
  configMapRef: { name: 'missing-root', namespace: 'bookinfo' },
  configMapKey: 'root-cert.pem',
};

describe('?dryRun=true warnings and bounds', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('dryrun-warn', { worker: false, env: { MAX_SELECTORS: '64' } });
    h.sim.addWorkload({
      namespace: 'bookinfo',
      name: 'reviews',
      kind: 'ReplicaSet',
      labels: { app: 'reviews' },
      replicas: 2,
    });
  });
  afterAll(async () => h.close());

  const plan = async (body: object) =>
    postRaw(h, JSON.stringify(body), { 'content-type': 'application/json' }, '?dryRun=true');

  it('warns of a selector without pods, an unreachable waitForReplicas and missing gate objects', async () => {
    h.sim.applyDirective(
      directive('bookinfo', 'warned', [
        { namespace: 'bookinfo', labels: { app: 'nothing' } },
        { namespace: 'bookinfo', labels: { app: 'reviews' }, waitForReplicas: 3 },
        { namespace: 'bookinfo', labels: { app: 'reviews' }, rootCertSync: ROOT_SYNC },
        { namespace: 'bookinfo', labels: { app: 'reviews' }, waitForReplicas: 2 },
      ]),
    );
    const answer = await plan({ directive: { namespace: 'bookinfo', name: 'warned' } });
    expect(answer.status).toBe(200);
    const codes = answer.body.selectors.map((s: any) => s.warnings.map((w: any) => w.code));
    expect(codes).toEqual([
      ['no-pods'],
      ['wait-for-replicas-unreachable'],
      ['secret-missing', 'configmap-missing'],
      [],
    ]);
    expect(answer.body.selectors[1].warnings[0].message).toMatch(
      /waitForReplicas is 3 but the selector's controllers keep 2 pod\(s\)/,
    );
  });

  it('plans at most MAX_SELECTORS selectors (422 above)', async () => {
    const many = Array.from({ length: 65 }, () => ({ namespace: 'bookinfo' }));
    const inline = await plan({ directive: directive('bookinfo', 'many', many) });
    expect(inline.status).toBe(422);
    h.sim.applyDirective(directive('bookinfo', 'many', many));
    h.sim.resetRequests();
    const ref = await plan({ directive: { namespace: 'bookinfo', name: 'many' } });
    expect(ref.status).toBe(422);
    // Refused before any pod was listed.
    expect(h.sim.requests().filter((r) => r.resource === 'pods')).toEqual([]);
  });
});
