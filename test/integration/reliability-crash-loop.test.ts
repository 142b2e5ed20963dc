import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  startHarness,
  stuckMesh,
  waitForState,
  type Harness,
  ALL_AT_ONCE,
} from '../support/harness.js';

describe('replacements that crash-loop forever', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('crashloop', {
      env: { ...ALL_AT_ONCE, READINESS_TIMEOUT_SECONDS: '2', POLL_INTERVAL_MS: '50' },
    });
  });
  afterAll(async () => h.close());

  it('end FAILED at the timeout with an actionable cause, having bounced the control plane once', async () => {
    stuckMesh(h, 'loop', 2);
    const originals = h.sim.listPods('istio-system', { app: 'istiod' }).map((p) => p.metadata.uid);
    expect((await h.post({ directive: { namespace: 'istio-system', name: 'loop' } })).status).toBe(
      202,
    );

    const failed = await waitForState(h, 'istio-system', 'loop', 'FAILED');
    expect(failed.status.error).toMatch(
      /^selector 0: timed out after 2s waiting for 2 Ready replacement pod\(s\) in istio-system \(0 so far\)$/,
    );
    // Only the two original istiod pods were ever deleted; the gateway was never touched.
    expect([...h.sim.deleteRequestsByUid().keys()].sort()).toEqual([...originals].sort());
    expect(h.sim.listPods('istio-system', { app: 'gateway' })).toHaveLength(2);
    // The status is written just before the job itself moves to failed.
    await eventually('the job to be failed', async () => {
      const counts = await h.serve.queue.getJobCounts(
        'failed',
        'waiting-children',
        'delayed',
        'active',
      );
      return counts.failed === 1 ? counts : undefined;
    }).then((counts) =>
      expect(counts).toMatchObject({ failed: 1, 'waiting-children': 1, delayed: 0, active: 0 }),
    );
    const reasons = h.sim.events().map((e: any) => `${e.reason}: ${e.message}`);
    expect(reasons).toContain(`Failed: ${failed.status.error}`);

    // Nothing keeps running afterwards: no more deletions however long one waits for them.
    const requestsAtFailure = h.sim.requests().filter((r) => r.method === 'DELETE').length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.sim.requests().filter((r) => r.method === 'DELETE').length).toBe(requestsAtFailure);
  });
});
