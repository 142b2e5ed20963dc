import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { rootCertSync, syncRootCert, unsyncedRootCert } from '../support/root-cert.js';
import { addApps } from '../support/workloads.js';

describe('issuedAt', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('issued');
  });
  afterAll(async () => h.close());

  it('skips pods created at or after it and bounces the older ones', async () => {
    const issuedAt = new Date('2026-11-29T12:00:00Z');
    h.sim.addPod({
      namespace: 'apps',
      name: 'old-pod',
      labels: { app: 'web' },
      createdAt: new Date('2026-11-29T11:59:59Z'),
    });
    h.sim.addPod({
      namespace: 'apps',
      name: 'same-second',
      labels: { app: 'web' },
      createdAt: new Date('2026-11-29T12:00:00Z'),
    });
    h.sim.addPod({
      namespace: 'apps',
      name: 'new-pod',
      labels: { app: 'web' },
      createdAt: new Date('2026-11-29T12:05:00Z'),
    });
    h.sim.applyDirective(directive('apps', 'web', [{ namespace: 'apps', labels: { app: 'web' } }]));

    const answer = await h.post({
      directive: { namespace: 'apps', name: 'web' },
      issuedAt: issuedAt.toISOString(),
    });
    expect(answer.status).toBe(202);
    const done = await waitForState(h, 'apps', 'web', 'FINISHED');
    expect(h.sim.deletedPods().map((p) => p.name)).toEqual(['old-pod']);
    expect(done.status.podsBounced).toEqual([{ bouncedPods: ['old-pod'] }]);
  });
});

describe('an issuedAt ahead of the clock (up to 5 minutes)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('issued-ahead');
  });
  afterAll(async () => h.close());

  const ref = (name: string, issuedAt: string) => ({
    directive: { namespace: 'ahead', name },
    issuedAt,
  });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** FINISHED for the run that answered `issuedAt` (the one before stays FINISHED meanwhile). */
  const finished = (name: string, issuedAt: string) =>
    eventually(`ahead/${name} to finish the run of ${issuedAt}`, () => {
      const status = h.sim.getDirective('ahead', name)?.status;
      return status?.state === 'FINISHED' && status.issuedAt === issuedAt ? status : undefined;
    });

  it('counts as the moment it was received: the genuine events after it are new runs', async () => {
    addApps(h, 'ahead', ['web'], { replicas: 1, readinessDelayMs: 50 });
    h.sim.applyDirective(
      directive('ahead', 'rounds', [{ namespace: 'ahead', labels: { app: 'web' } }]),
    );
    const sentAhead = new Date(Date.now() + 290_000).toISOString();
    const before = Date.now();
    const first = await h.post(ref('rounds', sentAhead));
    const after = Date.now();
    expect(first.status).toBe(202);
    expect(first.body.duplicate).toBe(false);
    // Stored, reported and compared as the moment it was received.
    const received = Date.parse(first.body.issuedAt);
    expect(received).toBeGreaterThanOrEqual(before);
    expect(received).toBeLessThanOrEqual(after);
    expect(first.body.jobIds[0]).toBe(`${first.body.uid}.g1.r${received}.s0`);
    await finished('rounds', first.body.issuedAt);

    // A sender whose clock runs a minute fast, then one on time: both are later issuances.
    await sleep(5);
    const soon = await h.post(ref('rounds', new Date(Date.now() + 60_000).toISOString()));
    expect(soon.status).toBe(202);
    expect(soon.body.duplicate).toBe(false);
    expect(Date.parse(soon.body.issuedAt)).toBeGreaterThan(received);
    await finished('rounds', soon.body.issuedAt);
    await sleep(5);
    const onTime = new Date().toISOString();
    const genuine = await h.post(ref('rounds', onTime));
    expect(genuine.body).toMatchObject({ duplicate: false, issuedAt: onTime });
    await finished('rounds', onTime);

    // The first event delivered again, its value now nearer or past: the same issuance.
    const again = await h.post(ref('rounds', sentAhead));
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ duplicate: true, jobIds: genuine.body.jobIds });
    expect(h.sim.deleteRequestsByUid().size).toBe(3);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
  });

  it('spares no pod it should bounce and chooses none created after the run was accepted', async () => {
    h.sim.addPod({
      namespace: 'ahead',
      name: 'old-pod',
      labels: { app: 'gated' },
      createdAt: new Date(Date.now() - 60_000),
    });
    unsyncedRootCert(h, 'ahead');
    h.sim.applyDirective(
      directive('ahead', 'gated', [
        {
          namespace: 'ahead',
          labels: { app: 'gated' },
          rootCertSync: rootCertSync('ahead'),
        },
      ]),
    );
    const answer = await h.post(ref('gated', new Date(Date.now() + 290_000).toISOString()));
    expect(answer.status).toBe(202);
    // The job waits for the root certificate before it chooses; a pod starts meanwhile, more
    // than a second after the run was accepted: it already has the new certificate.
    await sleep(2100);
    h.sim.addPod({ namespace: 'ahead', name: 'late-pod', labels: { app: 'gated' } });
    syncRootCert(h, 'ahead');
    const done = await waitForState(h, 'ahead', 'gated', 'FINISHED');
    expect(done.status.podsBounced).toEqual([{ bouncedPods: ['old-pod'] }]);
    expect(h.sim.deletedPods().map((pod) => pod.name)).not.toContain('late-pod');
  });
});
