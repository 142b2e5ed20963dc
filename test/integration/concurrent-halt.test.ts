// DESIGN §4: a terminal cause fails the job and the chain stops there. With several selectors in
// progress at once (maxConcurrentSelectors > 1), one selector's terminal failure halts the run as
// an abort does: once FAILED is written no pod is bounced any more, no selector starts, and a
// retry (the route's, or the dashboard's of the failed job) finishes the run with every chosen
// pod bounced exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import { eventually, startHarness, waitForState, type Harness } from '../support/harness.js';
import { addApps, concurrentDirective } from '../support/workloads.js';
import { DASHBOARD, dashboardRetry, basic } from '../support/dashboard.js';
import { retryRun, runJobs, waitForRunOver } from '../support/runs.js';
import { rootCertSync, syncRootCert, unsyncedRootCert } from '../support/root-cert.js';

const APPS = ['a0', 'a1', 'a2', 'a3'];

describe('a selector failing among several in progress', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('concurrent-halt', {
      env: {
        BOUNCE_MODE: 'delete',
        ROOT_CERT_SYNC_TIMEOUT_SECONDS: '2',
        ...DASHBOARD,
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
    addApps(h, ns, ['cert', ...APPS], () => ({ replicas: 4, readinessDelayMs: 800 }));
    unsyncedRootCert(h, ns);
    const originals = podUids(h, ns);
    const one = { waitForReplicas: 0, maxUnavailable: 1 };
    const selectors = [
      { namespace: ns, labels: { app: 'cert' }, ...one, rootCertSync: rootCertSync(ns) },
      ...APPS.map((app) => ({ namespace: ns, labels: { app }, ...one })),
    ];
    h.sim.applyDirective(concurrentDirective(ns, 'mesh', selectors, 2));
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

    await waitForRunOver(h, ns, 'mesh');
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
    if (synced) syncRootCert(h, ns);
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
    const retry = await retryRun(h, 'halt', 'mesh');
    expect(retry.status).toBe(202);
    await expectFinished('halt', originals, earlier);
    earlier.push(...originals);
  }, 90_000);

  it("the dashboard's retry of the failed job resumes the selectors it halted too", async () => {
    const originals = await haltedRun('halt-dash');
    const jobs = await runJobs(h, 'halt-dash', 'mesh');
    const retry = await dashboardRetry(h, jobs[0]!.jobId);
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
        headers: { authorization: basic() },
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
    await waitForRunOver(h, 'halt-all', 'mesh');
    expect(status().error).toMatch(/^selector 0: timed out after 2s/);
    syncRootCert(h, 'halt-all');
    expect((await retryAll()).status).toBeLessThan(300);
    await expectFinished('halt-all', originals, earlier);
  }, 90_000);
});
