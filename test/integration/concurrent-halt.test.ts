// DESIGN §4: a terminal cause fails the job and the chain stops there. With several selectors in
// progress at once (maxConcurrentSelectors > 1), one selector's terminal failure halts the run as
// an abort does: once FAILED is written no pod is bounced any more, no selector starts, and a
// retry finishes the run with every chosen pod bounced exactly once.
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

const NS = 'halt';
const APPS = ['a0', 'a1', 'a2', 'a3'];
const rootCertSync = {
  secretRef: { name: 'cacerts', namespace: NS },
  secretKey: 'root-cert.pem',
  configMapRef: { name: 'istio-ca-root-cert', namespace: NS },
  configMapKey: 'root-cert.pem',
};

describe('a selector failing among several in progress', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('concurrent-halt', {
      env: { BOUNCE_MODE: 'delete', ROOT_CERT_SYNC_TIMEOUT_SECONDS: '2' },
    });
  });
  afterAll(async () => h.close());

  const bounces = (from = 0): number =>
    h.sim
      .requests()
      .slice(from)
      .filter(
        (r) =>
          r.namespace === NS &&
          ((r.resource === 'pods' && r.method === 'DELETE') || r.subresource === 'eviction'),
      ).length;

  it('halts the run: nothing bounced after FAILED, no selector started; a retry finishes it', async () => {
    for (const app of ['cert', ...APPS]) {
      h.sim.addWorkload({
        namespace: NS,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 4,
        // Four batches of one, each replaced in 0.8 s: a0 and a1 are mid-way when cert times out.
        readinessDelayMs: 800,
      });
    }
    h.sim.putSecret(NS, 'cacerts', { 'root-cert.pem': 'NEW ROOT' });
    h.sim.putConfigMap(NS, 'istio-ca-root-cert', { 'root-cert.pem': 'OLD ROOT' });
    const originals = podUids(h, NS);
    const manifest = directive(NS, 'mesh', [
      {
        namespace: NS,
        labels: { app: 'cert' },
        waitForReplicas: 0,
        maxUnavailable: 1,
        rootCertSync,
      },
      ...APPS.map((app) => ({
        namespace: NS,
        labels: { app },
        waitForReplicas: 0,
        maxUnavailable: 1,
      })),
    ]);
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 2;
    h.sim.applyDirective(manifest);
    h.sim.resetRequests();
    expect((await h.post({ directive: { namespace: NS, name: 'mesh' } })).status).toBe(202);

    // The request log's length when FAILED is first seen, and where the write that said it was.
    let seenAt = -1;
    await eventually(
      'FAILED',
      () => {
        const status = (h.sim.getDirective(NS, 'mesh') as any)?.status;
        if (status?.state !== 'FAILED') return undefined;
        seenAt = h.sim.requests().length;
        return true;
      },
      30_000,
    );
    const log = h.sim.requests().slice(0, seenAt);
    const failedWrite = log.findLastIndex(
      (r) =>
        r.subresource === 'status' && r.method === 'PATCH' && r.name === 'mesh' && r.status === 200,
    );
    const failed = h.sim.getDirective(NS, 'mesh') as any;
    expect(failed.status.error).toMatch(/^selector 0: timed out after 2s/);
    const stalled = failed.status.conditions.find((c: { type: string }) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'Failed' });
    // a0 and a1 were in progress, with batches still to send.
    const before = bounces();
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(8);

    await eventually('every job of the run over', async () => {
      const jobs = (await h.get(`/v1/directives/${NS}/mesh`)).body.jobs as { state: string }[];
      return jobs.every((job) => job.state === 'failed' || job.state === 'completed')
        ? true
        : undefined;
    });
    // Longer than a replacement takes: a selector that went on would have sent its next batch.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(bounces(failedWrite + 1)).toBe(0);
    const still = h.sim.getDirective(NS, 'mesh') as any;
    expect(still.status).toMatchObject({ state: 'FAILED', error: failed.status.error });
    // a2 and a3 never started.
    for (const app of ['a2', 'a3']) {
      expect(h.sim.deletedPods().filter((pod) => pod.name.startsWith(`${app}-`))).toEqual([]);
    }

    h.sim.putConfigMap(NS, 'istio-ca-root-cert', { 'root-cert.pem': 'NEW ROOT' });
    const retry = await fetch(`${h.serve.url}/v1/directives/${NS}/mesh/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(retry.status).toBe(202);
    const done = await waitForState(h, NS, 'mesh', 'FINISHED', 60_000, false);
    expect(done.status.error).toBe('');
    done.status.podsBounced.forEach((entry: { bouncedPods: string[] }) =>
      expect(entry.bouncedPods).toHaveLength(4),
    );
    expectEachDeletedOnce(h, originals);
  }, 90_000);
});
