import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

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
