import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

describe('rootCertSync', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('rootcert');
  });
  afterAll(async () => h.close());

  it('deletes nothing while the ConfigMap differs from the Secret, and proceeds once they match', async () => {
    h.sim.addWorkload({
      namespace: 'bookinfo',
      name: 'reviews',
      kind: 'ReplicaSet',
      labels: { app: 'reviews' },
      replicas: 2,
    });
    h.sim.putSecret('istio-system', 'cacerts', { 'root-cert.pem': 'NEW ROOT' });
    h.sim.putConfigMap('bookinfo', 'istio-ca-root-cert', { 'root-cert.pem': 'OLD ROOT' });
    h.sim.applyDirective(
      directive('bookinfo', 'reviews-certs', [
        {
          namespace: 'bookinfo',
          labels: { app: 'reviews' },
          waitForReplicas: 2,
          rootCertSync: {
            secretRef: { name: 'cacerts', namespace: 'istio-system' },
            secretKey: 'root-cert.pem',
            configMapRef: { name: 'istio-ca-root-cert', namespace: 'bookinfo' },
            configMapKey: 'root-cert.pem',
          },
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

    h.sim.putConfigMap('bookinfo', 'istio-ca-root-cert', { 'root-cert.pem': 'NEW ROOT' });
    await waitForState(h, 'bookinfo', 'reviews-certs', 'FINISHED');
    expect(h.sim.deletedPods()).toHaveLength(2);
  });
});
