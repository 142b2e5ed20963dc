// DESIGN §4 Guarantees: a FINISHED run has replaced every pod it chose, and with
// maxConcurrentSelectors K the selectors in progress are the mesh-wide budget of workloads with
// pods down at once. With waitForReplicas 0, the last batch's replacements were not waited for:
// FINISHED came with half the pods still coming up, and the next selector started while the
// previous one's last pod was down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPodReady, isTerminating } from '../../src/sim/pod-factory.js';
import { onPodEvents } from '../support/availability.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { addApps, concurrentDirective } from '../support/workloads.js';

describe('the last batch is replaced before a selector is done', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('finished-replaced');
  });
  afterAll(async () => h.close());

  /** Pods of `labels` Ready and not terminating, in the simulator now. */
  const upNow = (namespace: string, labels: Record<string, string>) =>
    h.sim.listPods(namespace, labels).filter((pod) => isPodReady(pod) && !isTerminating(pod))
      .length;

  for (const mode of ['evict', 'delete'] as const) {
    it(`${mode}, waitForReplicas 0: FINISHED only once every replacement is Ready`, async () => {
      const namespace = `replaced-${mode}`;
      addApps(h, namespace, ['web'], { replicas: 4, readinessDelayMs: 1500 });
      const labels = { app: 'web' };
      h.sim.applyDirective(
        directive(namespace, 'certs', [
          { namespace, labels, maxUnavailable: 2, waitForReplicas: 0, bounceMode: mode },
        ]),
      );
      expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
      const finished = await waitForState(h, namespace, 'certs', 'FINISHED', 60_000);
      expect(upNow(namespace, labels), `${namespace}: Ready at FINISHED`).toBe(4);
      const ready = finished.status.conditions?.find((c: { type: string }) => c.type === 'Ready');
      expect(ready?.reason).toBe('Finished');
    }, 90_000);
  }

  it('K = 2: never more than 2 workloads with pods down at once', async () => {
    const namespace = 'k-budget';
    const apps = ['a', 'b', 'c', 'd', 'e'];
    addApps(h, namespace, apps, { replicas: 2, readinessDelayMs: 600 });
    const selectors = apps.map((app) => ({
      namespace,
      labels: { app },
      maxUnavailable: 1,
      waitForReplicas: 0,
    }));
    h.sim.applyDirective(concurrentDirective(namespace, 'certs', selectors, 2));
    let most = 0;
    const stop = await onPodEvents(h, namespace, () => {
      const down = apps.filter((app) => upNow(namespace, { app }) < 2).length;
      most = Math.max(most, down);
    });
    expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
    await waitForState(h, namespace, 'certs', 'FINISHED', 60_000);
    stop();
    console.log(`${namespace}: most workloads with pods down at once ${most}`);
    expect(most).toBeLessThanOrEqual(2);
  }, 90_000);
});
