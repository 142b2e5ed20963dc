// DESIGN §2: a 2xx waits for the jobs in Redis, not for the PENDING status, which follows the
// answer; when the api cannot write it, the worker writes it (and its Event) before its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { LogCapture } from '../support/log-capture.js';

function cond(status: any, type: string): any {
  return status?.conditions?.find((c: any) => c.type === type);
}

describe('the PENDING status follows the answer', () => {
  const capture = new LogCapture();
  let h: Harness;
  beforeAll(async () => {
    // No worker yet: the api's writes are the only status writes while the faults are on.
    h = await startHarness('pending-after', {
      worker: false,
      logDestination: capture,
      env: { LOG_LEVEL: 'warn' },
    });
  });
  afterAll(async () => h.close());

  it('answers 202 while status writes fail, and the worker marks the run PENDING, then finishes it', async () => {
    h.sim.addWorkload({
      namespace: 'mesh',
      name: 'gateway',
      kind: 'ReplicaSet',
      labels: { app: 'gateway' },
      replicas: 2,
    });
    h.sim.applyDirective(
      directive('mesh', 'gateway', [
        { namespace: 'mesh', labels: { app: 'gateway' }, waitForReplicas: 2 },
      ]),
    );
    h.sim.setFaults({ errorRate: 1, status: 500, methods: ['PATCH'], resources: ['status'] });
    const issuedAt = new Date().toISOString();
    const posted = await h.post({ directive: { namespace: 'mesh', name: 'gateway' }, issuedAt });
    expect(posted.status).toBe(202);
    expect(posted.body.duplicate).toBe(false);
    await eventually('the failed PENDING write in the logs', () =>
      capture.text().includes('could not mark the directive PENDING') ? true : undefined,
    );
    const refused = h.sim
      .requests()
      .filter((r) => r.subresource === 'status' && r.method === 'PATCH' && r.status === 500);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(h.sim.getDirective('mesh', 'gateway')?.status?.state).toBeUndefined();

    h.sim.setFaults(null);
    h.startWorker();
    const done = await waitForState(h, 'mesh', 'gateway', 'FINISHED');
    const generation = done.metadata.generation;
    expect(done.status).toMatchObject({ observedGeneration: generation, state: 'FINISHED' });
    expect(Date.parse(done.status.issuedAt)).toBe(Date.parse(issuedAt));
    expect(cond(done.status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Finished',
      observedGeneration: generation,
    });
    expect(cond(done.status, 'Reconciling')).toBeUndefined();
    expect(done.status.podsBounced[0].bouncedPods).toHaveLength(2);
    // The api's PENDING never landed: the worker wrote it first, with its Event, once.
    // The Event follows its status write: wait for it rather than read it at once.
    const reasons = await eventually('the Finished Event', () => {
      const seen = h.sim
        .events()
        .filter((e: any) => e.involvedObject?.name === 'gateway')
        .sort(
          (a: any, b: any) =>
            Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion),
        )
        .map((e: any) => e.reason);
      return seen.includes('Finished') ? seen : undefined;
    });
    expect(reasons.filter((r: string) => r === 'Accepted')).toHaveLength(1);
    expect(reasons.indexOf('Accepted')).toBeLessThan(reasons.indexOf('Bouncing'));
    expect(reasons.indexOf('Bouncing')).toBeLessThan(reasons.indexOf('Finished'));
  });

  it('answers before the PENDING write ends: a slow status write does not hold the 202', async () => {
    h.sim.applyDirective(
      directive('mesh', 'slow', [
        { namespace: 'mesh', labels: { app: 'gateway' }, waitForReplicas: 2 },
      ]),
    );
    h.sim.setFaults({ latencyMs: 60_000, methods: ['PATCH'], resources: ['status'] });
    try {
      const posted = await h.post({ directive: { namespace: 'mesh', name: 'slow' } });
      expect(posted.status).toBe(202);
      expect(h.sim.getDirective('mesh', 'slow')?.status?.state).toBeUndefined();
    } finally {
      h.sim.setFaults(null);
    }
  });
});
