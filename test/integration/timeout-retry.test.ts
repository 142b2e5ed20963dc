import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startHarness,
  stuckMesh,
  waitForState,
  type Harness,
  TOKEN,
  ALL_AT_ONCE,
} from '../support/harness.js';

describe('replacements that never become Ready', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('timeout', { env: { ...ALL_AT_ONCE, READINESS_TIMEOUT_SECONDS: '2' } });
  });
  afterAll(async () => h.close());

  it('fail the directive at the timeout, and an admin retry after they recover finishes it', async () => {
    stuckMesh(h, 'stuck');
    expect((await h.post({ directive: { namespace: 'istio-system', name: 'stuck' } })).status).toBe(
      202,
    );

    const failed = await waitForState(h, 'istio-system', 'stuck', 'FAILED');
    expect(failed.status.error).toMatch(
      /^selector 0: timed out after 2s waiting for 2 Ready replacement pod/,
    );
    expect(h.sim.deletedPods()).toHaveLength(2);
    const view = await h.get('/v1/directives/istio-system/stuck');
    expect(view.body.jobs[0]).toMatchObject({ selectorIndex: 0, state: 'failed' });
    expect(view.body.jobs[1]).toMatchObject({ selectorIndex: 1, state: 'waiting-children' });

    h.sim.setReadinessDelay('istio-system', 'istiod', 0);
    const retry = await fetch(`${h.serve.url}/v1/directives/istio-system/stuck/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(retry.status).toBe(202);
    expect(((await retry.json()) as any).retried).toEqual([view.body.jobs[0].jobId]);

    await waitForState(h, 'istio-system', 'stuck', 'FINISHED', 30_000, false);
    expect(h.sim.deletedPods()).toHaveLength(3);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
    const nothing = await fetch(`${h.serve.url}/v1/directives/istio-system/stuck/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(nothing.status).toBe(409);
  });
});
