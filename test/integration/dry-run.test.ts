import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';
import { keysUnder, postRaw } from '../support/routers.js';
import { rootCertSync, syncRootCert, unsyncedRootCert } from '../support/root-cert.js';
import { addApps } from '../support/workloads.js';

const ROOT_SYNC = rootCertSync('istio-system', 'bookinfo');

describe('?dryRun=true', () => {
  let h: Harness;
  const issuedAt = new Date(Date.now() + 5000);
  issuedAt.setMilliseconds(0);

  beforeAll(async () => {
    // No worker: an event sent for real below must stay queued, not change Redis mid-test.
    h = await startHarness('dryrun', { worker: false });
    h.sim.addWorkload({
      namespace: 'istio-system',
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 3,
      terminationGraceMs: 600_000,
    });
    addApps(h, 'bookinfo', ['reviews'], { replicas: 2 });
    unsyncedRootCert(h, 'istio-system', 'bookinfo');
    h.sim.applyDirective(
      directive('istio-system', 'planned', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 3 },
        { namespace: 'bookinfo', labels: { app: 'reviews' }, rootCertSync: ROOT_SYNC },
      ]),
    );
  });
  afterAll(async () => h.close());

  /**
   * Posts with ?dryRun=true and proves that nothing but reads reached the cluster or Redis (an
   * inline directive's apply goes as a dry run too: the API server judges it, persisting nothing).
   */
  async function dryRun(body: string, headers: Record<string, string> = {}) {
    const keys = await keysUnder(h.prefix);
    h.sim.resetRequests();
    const answer = await postRaw(
      h,
      body,
      { 'content-type': 'application/json', ...headers },
      '?dryRun=true',
    );
    const writes = h.sim
      .requests()
      .filter((request) => request.method !== 'GET' && !/(^|&)dryRun=All(&|$)/.test(request.query));
    expect(writes).toEqual([]);
    expect(await keysUnder(h.prefix)).toEqual(keys);
    return answer;
  }

  it('plans a reference: pods per selector with the select filter applied, and the gates', async () => {
    const [terminating] = h.sim.listPods('istio-system', { app: 'istiod' });
    await h.kube.deletePod('istio-system', terminating!.metadata.name, terminating!.metadata.uid);
    // The ReplicaSet has already replaced it: that replacement predates issuedAt, so it is planned.
    const live = h.sim
      .listPods('istio-system', { app: 'istiod' })
      .filter((pod) => pod.metadata.deletionTimestamp === undefined);
    expect(live).toHaveLength(3);
    const young = h.sim.addPod({
      namespace: 'istio-system',
      name: 'istiod-young',
      labels: { app: 'istiod' },
      createdAt: new Date(issuedAt.getTime()),
    });

    const answer = await dryRun(
      JSON.stringify({
        directive: { namespace: 'istio-system', name: 'planned' },
        issuedAt: issuedAt.toISOString(),
      }),
    );
    expect(answer.status).toBe(200);
    const plan = answer.body;
    const stored = h.sim.getDirective('istio-system', 'planned')!;
    expect(plan).toMatchObject({
      dryRun: true,
      directive: 'istio-system/planned',
      inline: false,
      uid: stored.metadata.uid,
      generation: 1,
    });
    // Ahead of the clock, issuedAt counts as the moment the event was received, as for a run.
    expect(Date.parse(plan.issuedAt)).toBeLessThanOrEqual(Date.now());
    expect(stored.status?.state).toBeUndefined();
    const [first, second] = plan.selectors;
    expect(first.pods.map((pod: any) => pod.uid).sort()).toEqual(
      live.map((pod) => pod.metadata.uid).sort(),
    );
    for (const pod of first.pods) {
      expect(pod.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
      expect(Date.parse(pod.created)).toBeLessThan(issuedAt.getTime());
    }
    expect(first.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uid: terminating!.metadata.uid, reason: 'terminating' }),
        expect.objectContaining({
          uid: young.metadata.uid,
          reason: 'created at or after issuedAt',
        }),
      ]),
    );
    expect(first.gates).toEqual({ rootCertSync: null, waitForReplicas: 3 });
    expect(second.pods).toHaveLength(2);
    expect(second.gates.rootCertSync).toMatchObject({
      ...ROOT_SYNC,
      inSync: false,
      reason: 'differs',
    });
    expect(JSON.stringify(plan)).not.toContain('NEW ROOT');

    syncRootCert(h, 'bookinfo');
    const synced = await dryRun(
      JSON.stringify({ directive: { namespace: 'istio-system', name: 'planned' } }),
    );
    expect(synced.body.selectors[1].gates.rootCertSync.inSync).toBe(true);
    expect(synced.body.issuedAt).toBeNull();
    // Without issuedAt only the terminating pod is left alone.
    expect(synced.body.selectors[0].pods).toHaveLength(4);
  });

  it('shows the batches the worker would make: mode, maxUnavailable and pods per batch', async () => {
    h.sim.addWorkload({
      namespace: 'bookinfo',
      name: 'db',
      kind: 'StatefulSet',
      labels: { app: 'db' },
      replicas: 4,
    });
    const inline = directive('bookinfo', 'batched', [
      // The defaults (evict, 25% of 4 = 1): four batches, StatefulSet ordinals descending.
      { namespace: 'bookinfo', labels: { app: 'db' } },
      { namespace: 'bookinfo', labels: { app: 'db' }, maxUnavailable: 2, bounceMode: 'delete' },
      { namespace: 'bookinfo', labels: { app: 'db' }, maxUnavailable: '100%' },
    ]);
    const answer = await dryRun(JSON.stringify({ directive: inline }));
    expect(answer.status).toBe(200);
    const [byDefault, byTwo, allAtOnce] = answer.body.selectors;
    expect(byDefault).toMatchObject({ bounceMode: 'evict', maxUnavailable: 1 });
    expect(byDefault.batches).toEqual([['db-3'], ['db-2'], ['db-1'], ['db-0']]);
    expect(byTwo).toMatchObject({ bounceMode: 'delete', maxUnavailable: 2 });
    expect(byTwo.batches).toEqual([
      ['db-3', 'db-2'],
      ['db-1', 'db-0'],
    ]);
    expect(allAtOnce).toMatchObject({ maxUnavailable: 4 });
    expect(allAtOnce.batches).toHaveLength(1);
  });

  it('plans an inline directive from its spec without writing it', async () => {
    const answer = await dryRun(
      JSON.stringify({
        directive: directive('bookinfo', 'not-yet-applied', [
          { namespace: 'bookinfo', labels: [{ key: 'app', value: 'reviews' }], waitForReplicas: 1 },
        ]),
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      directive: 'bookinfo/not-yet-applied',
      inline: true,
      uid: null,
      generation: null,
    });
    expect(answer.body.selectors[0]).toMatchObject({
      namespace: 'bookinfo',
      labels: { app: 'reviews' },
      gates: { rootCertSync: null, waitForReplicas: 1 },
    });
    expect(answer.body.selectors[0].pods).toHaveLength(2);
    expect(h.sim.getDirective('bookinfo', 'not-yet-applied')).toBeUndefined();
  });

  it('works on every shape: a CloudEvent is planned and not remembered; an ignored event says so', async () => {
    const ce = await dryRun(
      JSON.stringify({ directive: { namespace: 'istio-system', name: 'planned' } }),
      {
        'ce-specversion': '1.0',
        'ce-id': 'dry-1',
        'ce-source': '/cert-agent',
        'ce-type': 'cert.issued',
        'ce-time': issuedAt.toISOString(),
      },
    );
    expect(ce.status).toBe(200);
    expect(Date.parse(ce.body.issuedAt)).toBeLessThanOrEqual(Date.now());
    // Not remembered: the same CloudEvent sent for real afterwards is accepted, not a duplicate.
    const real = await postRaw(
      h,
      JSON.stringify({ directive: { namespace: 'istio-system', name: 'planned' } }),
      {
        'content-type': 'application/json',
        'ce-specversion': '1.0',
        'ce-id': 'dry-1',
        'ce-source': '/cert-agent',
        'ce-type': 'cert.issued',
      },
    );
    expect(real.status).toBe(202);
    expect(real.body.duplicate).toBe(false);
    // Its PENDING status and Accepted Event follow the answer: let them land before the next
    // dry run counts writes.
    await eventually('the Accepted Event of the real event', () =>
      h.sim
        .events()
        .some((e: any) => e.reason === 'Accepted' && e.involvedObject?.name === 'planned')
        ? true
        : undefined,
    );

    const ignored = await dryRun(
      JSON.stringify({ type: 'DELETED', object: h.sim.getDirective('istio-system', 'planned') }),
    );
    expect(ignored.status).toBe(200);
    expect(ignored.body).toMatchObject({ dryRun: true, ignored: true });

    const missing = await dryRun(
      JSON.stringify({ directive: { namespace: 'istio-system', name: 'nope' } }),
    );
    expect(missing.status).toBe(404);
    const bad = await postRaw(h, '{}', { 'content-type': 'application/json' }, '?dryRun=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/dryRun/);
  });
});
