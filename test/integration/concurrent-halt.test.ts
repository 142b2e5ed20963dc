// DESIGN §4: a terminal cause fails the job and the chain stops there. With several selectors in
// progress at once (maxConcurrentSelectors > 1), one selector's terminal failure halts the run as
// an abort does: once FAILED is written no pod is bounced any more, no selector starts, and a
// retry (the route's, or the dashboard's of the failed job) finishes the run with every chosen
// pod bounced exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import {
  TOKEN,
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const APPS = ['a0', 'a1', 'a2', 'a3'];
const USER = 'ops';
const PASSWORD = 'dashboard-password-0123';

function rootCertSync(ns: string) {
  return {
    secretRef: { name: 'cacerts', namespace: ns },
    secretKey: 'root-cert.pem',
    configMapRef: { name: 'istio-ca-root-cert', namespace: ns },
    configMapKey: 'root-cert.pem',
  };
}

describe('a selector failing among several in progress', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('concurrent-halt', {
      env: {
        BOUNCE_MODE: 'delete',
        ROOT_CERT_SYNC_TIMEOUT_SECONDS: '2',
        DASHBOARD_USER: USER,
        DASHBOARD_PASSWORD: PASSWORD,
      },
    });
  });
  afterAll(async () => h.close());

  const bounces = (ns: string, from = 0): number =>
    h.sim
      .requests()
      .slice(from)
      .filter(
        (r) =>
          r.namespace === ns &&
          ((r.resource === 'pods' && r.method === 'DELETE') || r.subresource === 'eviction'),
      ).length;

  /**
   * cert (its root cert never syncs: it times out at 2 s), then four apps of four pods, one at a
   * time, each replaced in 0.8 s, two selectors at once: a0 and a1 are mid-way when cert fails.
   */
  async function haltedRun(ns: string, synced = true): Promise<string[]> {
    for (const app of ['cert', ...APPS]) {
      h.sim.addWorkload({
        namespace: ns,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 4,
        readinessDelayMs: 800,
      });
    }
    h.sim.putSecret(ns, 'cacerts', { 'root-cert.pem': 'NEW ROOT' });
    h.sim.putConfigMap(ns, 'istio-ca-root-cert', { 'root-cert.pem': 'OLD ROOT' });
    const originals = podUids(h, ns);
    const one = { waitForReplicas: 0, maxUnavailable: 1 };
    const manifest = directive(ns, 'mesh', [
      { namespace: ns, labels: { app: 'cert' }, ...one, rootCertSync: rootCertSync(ns) },
      ...APPS.map((app) => ({ namespace: ns, labels: { app }, ...one })),
    ]);
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 2;
    h.sim.applyDirective(manifest);
    h.sim.resetRequests();
    expect((await h.post({ directive: { namespace: ns, name: 'mesh' } })).status).toBe(202);

    // Where in the request log the write that said FAILED is: the last status write before the
    // status was first seen FAILED.
    const seenAt = await eventually('FAILED', () =>
      (h.sim.getDirective(ns, 'mesh') as any)?.status?.state === 'FAILED'
        ? h.sim.requests().length
        : undefined,
    );
    const failedWrite = h.sim
      .requests()
      .slice(0, seenAt)
      .findLastIndex(
        (r) => r.subresource === 'status' && r.method === 'PATCH' && r.namespace === ns,
      );
    const failed = h.sim.getDirective(ns, 'mesh') as any;
    expect(failed.status.error).toMatch(/^selector 0: timed out after 2s/);
    const stalled = failed.status.conditions.find((c: { type: string }) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'Failed' });
    // a0 and a1 were in progress, with batches still to send.
    const before = bounces(ns);
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(8);

    await eventually('every job of the run over', async () => {
      const jobs = (await h.get(`/v1/directives/${ns}/mesh`)).body.jobs as { state: string }[];
      return jobs.every((job) => job.state === 'failed' || job.state === 'completed')
        ? true
        : undefined;
    });
    // Longer than a replacement takes: a selector that went on would have sent its next batch.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(bounces(ns, failedWrite + 1)).toBe(0);
    const still = h.sim.getDirective(ns, 'mesh') as any;
    expect(still.status).toMatchObject({ state: 'FAILED', error: failed.status.error });
    // a2 and a3 never started.
    for (const app of ['a2', 'a3']) {
      const gone = h.sim
        .deletedPods()
        .filter((pod) => pod.namespace === ns && pod.name.startsWith(`${app}-`));
      expect(gone).toEqual([]);
    }
    if (synced) h.sim.putConfigMap(ns, 'istio-ca-root-cert', { 'root-cert.pem': 'NEW ROOT' });
    return originals;
  }

  async function expectFinished(ns: string, originals: string[], others: string[]) {
    const done = await waitForState(h, ns, 'mesh', 'FINISHED', 60_000, false);
    expect(done.status.error).toBe('');
    done.status.podsBounced.forEach((entry: { bouncedPods: string[] }) =>
      expect(entry.bouncedPods).toHaveLength(4),
    );
    expectEachDeletedOnce(h, originals, others);
  }

  const earlier: string[] = [];

  it('halts the run: nothing bounced after FAILED, no selector started; a retry finishes it', async () => {
    const originals = await haltedRun('halt');
    const retry = await fetch(`${h.serve.url}/v1/directives/halt/mesh/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(retry.status).toBe(202);
    await expectFinished('halt', originals, earlier);
    earlier.push(...originals);
  }, 90_000);

  it("the dashboard's retry of the failed job resumes the selectors it halted too", async () => {
    const originals = await haltedRun('halt-dash');
    const jobs = (await h.get('/v1/directives/halt-dash/mesh')).body.jobs;
    const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    const retry = await fetch(
      `${h.serve.url}/admin/queues/api/queues/bounce/${encodeURIComponent(jobs[0].jobId)}/retry`,
      { method: 'PUT', headers: { authorization } },
    );
    expect(retry.status).toBeLessThan(300);
    await expectFinished('halt-dash', originals, earlier);
    earlier.push(...originals);
  }, 90_000);

  // bull-board's "retry all" moves every failed job back to wait at once: the halted selectors'
  // jobs may begin before the halting one has withdrawn the halt. They wait for it, not fail.
  it("the dashboard's retry of every failed job resumes the run, or names the same cause again", async () => {
    const originals = await haltedRun('halt-all', false);
    const retryAll = () =>
      fetch(`${h.serve.url}/admin/queues/api/queues/bounce/retry/failed`, {
        method: 'PUT',
        headers: {
          authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
        },
      });
    const status = () => (h.sim.getDirective('halt-all', 'mesh') as any).status;
    const stalled = () =>
      status().conditions.find((c: { type: string }) => c.type === 'Stalled')?.status;
    // The root cert is still not synced: selector 0 fails again, and the run says so.
    expect((await retryAll()).status).toBeLessThan(300);
    await eventually('the run going on', () =>
      status().state === 'BOUNCING_PODS' && status().error === '' && stalled() !== 'True'
        ? true
        : undefined,
    );
    await eventually('FAILED again', () => (status().state === 'FAILED' ? true : undefined));
    await eventually('every job of the run over', async () => {
      const jobs = (await h.get('/v1/directives/halt-all/mesh')).body.jobs as { state: string }[];
      return jobs.every((job) => job.state === 'failed' || job.state === 'completed')
        ? true
        : undefined;
    });
    expect(status().error).toMatch(/^selector 0: timed out after 2s/);
    h.sim.putConfigMap('halt-all', 'istio-ca-root-cert', { 'root-cert.pem': 'NEW ROOT' });
    expect((await retryAll()).status).toBeLessThan(300);
    await expectFinished('halt-all', originals, earlier);
  }, 90_000);
});
