// DESIGN §4: a selector whose pod names would make the directive larger than the API server
// accepts fails with the size and the limit in its error, before it bounces anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

describe('a status that would not fit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('status-size');
  });
  afterAll(async () => h.close());

  it('fails the selector before any pod is bounced', async () => {
    h.sim.addWorkload({
      namespace: 'apps',
      name: 'small',
      kind: 'ReplicaSet',
      labels: { app: 'small' },
      replicas: 2,
    });
    h.sim.addWorkload({
      namespace: 'apps',
      name: 'web',
      kind: 'ReplicaSet',
      labels: { app: 'web' },
      replicas: 3,
    });
    const manifest = directive('apps', 'crowded', [
      { namespace: 'apps', labels: { app: 'small' }, waitForReplicas: 0 },
      { namespace: 'apps', labels: { app: 'web' }, waitForReplicas: 0 },
    ]);
    // The object is already this close to the limit: the first selector still fits, not the second.
    const filler = 'x'.repeat(1_572_864 - 8192 - 700);
    (manifest.metadata as Record<string, unknown>).annotations = { 'example.com/notes': filler };
    h.sim.applyDirective(manifest);
    expect((await h.post({ directive: { namespace: 'apps', name: 'crowded' } })).status).toBe(202);
    const failed = await waitForState(h, 'apps', 'crowded', 'FAILED');
    expect(failed.status.error).toMatch(
      /^selector 1: the status with its 3 pod name\(s\) would make the directive \d+ bytes, over the API server's object limit of 1572864 bytes/,
    );
    expect(h.sim.deletedPods().filter((pod) => pod.name.startsWith('web'))).toEqual([]);
  });
});
