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

describe('rootCertSync', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('rootcert');
  });
  afterAll(async () => h.close());

  it('deletes nothing while the ConfigMap differs from the Secret, and proceeds once they match', async () => {
    addApps(h, 'bookinfo', ['reviews'], { replicas: 2 });
    unsyncedRootCert(h, 'istio-system', 'bookinfo');
    h.sim.applyDirective(
      directive('bookinfo', 'reviews-certs', [
        {
          namespace: 'bookinfo',
          labels: { app: 'reviews' },
          waitForReplicas: 2,
          rootCertSync: rootCertSync('istio-system', 'bookinfo'),
        },
      ]),
    );
    expect(
      (await h.post({ directive: { namespace: 'bookinfo', name: 'reviews-certs' } })).status,
    ).toBe(202);

    // Let the job re-check the gate several times before asserting that nothing moved.
    await eventually('several root-cert checks', () =>
      h.sim.requests().filter((r) => r.resource === 'secrets' && r.method === 'GET').length >= 5
        ? true
        : undefined,
    );
    expect(h.sim.deletedPods()).toEqual([]);
    expect((h.sim.getDirective('bookinfo', 'reviews-certs') as any).status.podsBounced).toEqual([]);

    syncRootCert(h, 'bookinfo');
    await waitForState(h, 'bookinfo', 'reviews-certs', 'FINISHED');
    expect(h.sim.deletedPods()).toHaveLength(2);
  });
});
