import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

describe('StatefulSet-style pods', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sts');
  });
  afterAll(async () => h.close());

  it('never deletes a replacement that reuses the name, and counts it in the wait', async () => {
    h.sim.addWorkload({
      namespace: 'bookinfo',
      name: 'ratings',
      kind: 'StatefulSet',
      labels: { app: 'ratings' },
      replicas: 2,
      readinessDelayMs: 300,
      terminationGraceMs: 200,
    });
    const originals = h.sim
      .listPods('bookinfo', { app: 'ratings' })
      .map((p) => ({ name: p.metadata.name, uid: p.metadata.uid }));
    h.sim.applyDirective(
      directive('bookinfo', 'ratings', [
        { namespace: 'bookinfo', labels: { app: 'ratings' }, waitForReplicas: 2 },
      ]),
    );
    expect((await h.post({ directive: { namespace: 'bookinfo', name: 'ratings' } })).status).toBe(
      202,
    );

    const done = await waitForState(h, 'bookinfo', 'ratings', 'FINISHED');
    const now = h.sim.listPods('bookinfo', { app: 'ratings' });
    expect(now.map((p) => p.metadata.name).sort()).toEqual(originals.map((p) => p.name).sort());
    expect(now.some((p) => originals.some((o) => o.uid === p.metadata.uid))).toBe(false);
    expect([...h.sim.deleteRequestsByUid().keys()].sort()).toEqual(
      originals.map((p) => p.uid).sort(),
    );
    expect(done.status.podsBounced).toEqual([{ bouncedPods: originals.map((p) => p.name) }]);
  });
});
