// A waiting job is woken by the shared watch, not by its delayed re-check: with a 60 s poll the
// directive still finishes promptly, and the re-check reads the watch cache instead of listing.
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

const SYNC = rootCertSync('istio-system', 'shop');

describe('watch-driven wake-ups (POLL_INTERVAL_MS=60000)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('wakeup', { env: { POLL_INTERVAL_MS: '60000' } });
  });
  afterAll(async () => h.close());

  it('wakes waitForReplicas when replacements turn Ready, chaining selectors', async () => {
    for (const app of ['front', 'back']) {
      h.sim.addWorkload({
        namespace: 'shop',
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 3,
        readinessDelayMs: 300,
      });
    }
    h.sim.applyDirective(
      directive('shop', 'certs', [
        { namespace: 'shop', labels: { app: 'back' }, waitForReplicas: 3 },
        { namespace: 'shop', labels: { app: 'front' }, waitForReplicas: 3 },
      ]),
    );
    const woken = h.work!.wakeups.woken;
    expect((await h.post({ directive: { namespace: 'shop', name: 'certs' } })).status).toBe(202);

    // The poll would re-check after 60 s; only a wake-up finishes this within the 30 s limit.
    await waitForState(h, 'shop', 'certs', 'FINISHED');
    expect(h.work!.wakeups.woken - woken).toBeGreaterThanOrEqual(2);
    expect(h.sim.deletedPods()).toHaveLength(6);
    // Re-checks after a wake-up read the watch cache: one LIST per select, plus at most one wait
    // check that ran before the namespace's pod watch had synced.
    const lists = h.sim
      .requests()
      .filter((r) => r.resource === 'pods' && !r.watch && r.query.includes('labelSelector'));
    expect(lists.length).toBeLessThanOrEqual(3);
  });

  it('wakes rootCertSync when the ConfigMap gets the new root', async () => {
    addApps(h, 'shop', ['cart'], { replicas: 2 });
    unsyncedRootCert(h, 'istio-system', 'shop');
    h.sim.applyDirective(
      directive('shop', 'cart-certs', [
        { namespace: 'shop', labels: { app: 'cart' }, waitForReplicas: 0, rootCertSync: SYNC },
      ]),
    );
    expect((await h.post({ directive: { namespace: 'shop', name: 'cart-certs' } })).status).toBe(
      202,
    );
    await eventually('the job parked on the root cert', () =>
      h.work!.wakeups.size > 0 ? true : undefined,
    );
    expect(h.sim.listPods('shop', { app: 'cart' }).every((pod) => !pod.metadata.deletionTimestamp));

    syncRootCert(h, 'shop');
    await waitForState(h, 'shop', 'cart-certs', 'FINISHED');
    expect(h.sim.deletedPods().filter((pod) => pod.name.startsWith('cart-')).length).toBe(2);
  });
});
