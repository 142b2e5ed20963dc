// DESIGN §4: a 409 on a status write means re-read, re-apply and retry; it is never a verdict on
// the directive. Many selectors at once write one directive's status and collide; conflicts that
// outlast the writer's bound run the step again later instead of failing the run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { addApps } from '../support/workloads.js';

describe('status write conflicts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('status-conflicts', { env: { BOUNCE_MODE: 'delete' } });
  });
  afterAll(async () => h.close());

  it('200 selectors at K = 50 whose writes collide end FINISHED', async () => {
    const ns = 'collide';
    // Selectors that match no pod: every selector is a few status writes and nothing else, 50 at
    // once against the same directive.
    const selectors = Array.from({ length: 200 }, (_, i) => ({
      namespace: ns,
      labels: { app: `none-${i}` },
      waitForReplicas: 0,
    }));
    const manifest = directive(ns, 'many', selectors);
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 50;
    h.sim.applyDirective(manifest);
    h.sim.resetRequests();
    expect((await h.post({ directive: { namespace: ns, name: 'many' } })).status).toBe(202);
    const done = await waitForState(h, ns, 'many', 'FINISHED', 90_000);
    expect(done.status.error).toBe('');
    expect(done.status.podsBounced).toHaveLength(200);
    // The writes of 50 selectors in progress are coalesced per directive (the lanes of status/reporter.ts),
    // so one worker seldom conflicts with itself; the next test forces conflicts on every write.
  }, 120_000);

  it('more than 10 conflicts in a row on one write: the run ends FINISHED, not FAILED', async () => {
    const ns = 'forced';
    addApps(h, ns, ['web'], { replicas: 2 });
    h.sim.applyDirective(directive(ns, 'web', [{ namespace: ns, labels: { app: 'web' } }]));
    h.sim.resetRequests();
    // Every status write conflicts, 25 times: more than the writer's own bound (10) twice over.
    h.sim.setFaults({
      status: 409,
      errorRate: 1,
      methods: ['PATCH'],
      resources: ['status'],
      limit: 25,
    });
    try {
      expect((await h.post({ directive: { namespace: ns, name: 'web' } })).status).toBe(202);
      const done = await waitForState(h, ns, 'web', 'FINISHED', 60_000);
      expect(done.status.error).toBe('');
    } finally {
      h.sim.setFaults(null);
    }
    const patches = h.sim
      .requests()
      .filter((r) => r.subresource === 'status' && r.method === 'PATCH')
      .map((r) => r.status);
    expect(patches.slice(0, 25).every((status) => status === 409)).toBe(true);
    expect(patches).toContain(200);
  }, 90_000);
});
