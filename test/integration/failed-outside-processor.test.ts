// A selector job can fail without the processor seeing it: once its worker died more often than
// `maxStalledCount`, BullMQ's stalled-job check marks it with a deferred failure, and the next
// worker to take it fails it at once ("job stalled more than allowable limit"). DESIGN §4: every
// accepted run still ends FAILED with a cause, and with several selectors in progress the first
// terminal failure halts the run; a later one never replaces the cause the status names.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForReady,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { REDIS_URL } from '../support/redis.js';
import { addApps, concurrentDirective } from '../support/workloads.js';
import { DASHBOARD, dashboardRetry } from '../support/dashboard.js';
import { retryRun, runJobs, waitForRunOver } from '../support/runs.js';
import { rootCertSync, syncRootCert, unsyncedRootCert } from '../support/root-cert.js';

const NS = 'stall';
const STALLED = 'job stalled more than allowable limit';

describe('a selector job that BullMQ fails itself', () => {
  let h: Harness;
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    h = await startHarness('failed-outside', {
      env: { BOUNCE_MODE: 'delete', ...DASHBOARD },
    });
  });
  afterAll(async () => {
    redis.disconnect();
    await h.close();
  });

  const status = () => (h.sim.getDirective(NS, 'mesh') as any)?.status;
  const jobs = () => runJobs(h, NS, 'mesh');
  /** What BullMQ's stalled-job check writes on a job that stalled too often. */
  async function stallTooOften(jobId: string): Promise<void> {
    await redis.hset(h.serve.queue.toKey(jobId), 'defa', STALLED);
  }

  it('fails the run naming it, halts the others, and keeps that cause', async () => {
    addApps(h, NS, ['cert', 'a0'], () => ({ replicas: 4, readinessDelayMs: 800 }));
    unsyncedRootCert(h, NS);
    const originals = podUids(h, NS);
    const one = { waitForReplicas: 0, maxUnavailable: 1 };
    const selectors = [
      { namespace: NS, labels: { app: 'cert' }, ...one, rootCertSync: rootCertSync(NS) },
      { namespace: NS, labels: { app: 'a0' }, ...one },
    ];
    h.sim.applyDirective(concurrentDirective(NS, 'mesh', selectors, 2));
    expect((await h.post({ directive: { namespace: NS, name: 'mesh' } })).status).toBe(202);

    // Selector 0 waits for its root cert (delayed) while selector 1 bounces its first pod.
    const [cert, a0] = await eventually('selector 0 parked, selector 1 in progress', async () => {
      const now = await jobs();
      const gone = h.sim.deletedPods().filter((pod) => pod.name.startsWith('a0-'));
      return now[0]?.state === 'delayed' && gone.length > 0 ? now : undefined;
    });
    await stallTooOften(cert!.jobId);
    // Its re-check may have come due meanwhile: then a worker takes it anyway.
    await (await h.serve.queue.getJob(cert!.jobId))!.promote().catch((error: Error) => {
      if (!/not in the delayed state/.test(error.message)) throw error;
    });

    await eventually('FAILED naming selector 0', () =>
      status()?.state === 'FAILED' ? true : undefined,
    );
    expect(status().error).toBe(`selector 0: ${STALLED}`);
    const stalled = status().conditions.find((c: { type: string }) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'Failed' });
    // Selector 1 stops before its next batch.
    await waitForRunOver(h, NS, 'mesh', ['failed']);
    expect(h.sim.deletedPods().filter((pod) => pod.name.startsWith('a0-')).length).toBeLessThan(4);

    // Selector 1, retried on its own (the dashboard), is failed by BullMQ too: the run stays
    // FAILED for the selector that halted it.
    await stallTooOften(a0!.jobId);
    const retry = await dashboardRetry(h, a0!.jobId);
    expect(retry.status).toBeLessThan(300);
    await eventually('selector 1 failed by BullMQ', async () =>
      (await h.serve.queue.getJob(a0!.jobId))?.failedReason === STALLED ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(status()).toMatchObject({ state: 'FAILED', error: `selector 0: ${STALLED}` });

    // The retry route finishes the run, each pod bounced once.
    syncRootCert(h, NS);
    const again = await retryRun(h, NS, 'mesh');
    expect(again.status).toBe(202);
    const done = await waitForState(h, NS, 'mesh', 'FINISHED', 60_000, false);
    expect(done.status.error).toBe('');
    expectEachDeletedOnce(h, originals);
  }, 90_000);
});

// DESIGN §4: a 409 on a status write means re-read and retry. A FAILED whose writes conflict more
// often than the writer's bound still reaches the status: the job fails, and its write is tried
// again once it has.
describe('a FAILED write that keeps conflicting', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('failed-unwritten', {
      env: { BOUNCE_MODE: 'delete', ROOT_CERT_SYNC_TIMEOUT_SECONDS: '2' },
    });
  });
  afterAll(async () => h.close());

  it('is written once the job has failed', async () => {
    const ns = 'unwritten';
    addApps(h, ns, ['cert'], { replicas: 1 });
    unsyncedRootCert(h, ns);
    h.sim.applyDirective(
      directive(ns, 'mesh', [
        { namespace: ns, labels: { app: 'cert' }, rootCertSync: rootCertSync(ns) },
      ]),
    );
    expect((await h.post({ directive: { namespace: ns, name: 'mesh' } })).status).toBe(202);
    const status = () => (h.sim.getDirective(ns, 'mesh') as any)?.status;
    await waitForReady(h, ns, 'mesh', 'Waiting');
    // The next status write is the FAILED of the timeout: its first ten tries conflict.
    const from = h.sim.requests().length;
    h.sim.setFaults({
      errorRate: 1,
      status: 409,
      methods: ['PATCH'],
      resources: ['status'],
      limit: 10,
    });
    await eventually('FAILED', () => (status()?.state === 'FAILED' ? true : undefined), 20_000);
    h.sim.setFaults(null);
    expect(status().error).toMatch(/^selector 0: timed out after 2s/);
    const conflicts = h.sim
      .requests()
      .slice(from)
      .filter((r) => r.subresource === 'status' && r.method === 'PATCH' && r.status === 409);
    expect(conflicts).toHaveLength(10);
  }, 60_000);
});
