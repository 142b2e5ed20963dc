// DESIGN §4 Order, a selector failing while others are in progress (maxConcurrentSelectors > 1):
// the run is FAILED naming it and halts as an abort does (the selectors in progress stop before
// their next batch, none starts); a retry lets the run finish, each pod bounced once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import { TOKEN, startHarness, waitForState, type Harness } from '../support/harness.js';
import { addApps, concurrentDirective } from '../support/workloads.js';
import { retryRun, runJobs, waitForRunOver } from '../support/runs.js';

const APPS = ['istiod', 'stuck', 'a1', 'a2', 'gateway', 'b0'];

describe('a failed selector among several in progress', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('concurrent-failure', {
      env: { BOUNCE_MODE: 'delete', READINESS_TIMEOUT_SECONDS: '2' },
    });
  });
  afterAll(async () => h.close());

  it('fails the run, halts the selectors in progress and every later one until a retry', async () => {
    const ns = 'mesh';
    addApps(h, ns, APPS, (app) => ({
      // a1 and a2 are still going (three waits of 1.5 s) when the stuck one times out at 2 s.
      replicas: app.startsWith('a') ? 4 : 2,
      // The stuck workload's replacements never become Ready: its next batch times out.
      readinessDelayMs: app === 'stuck' ? null : app.startsWith('a') ? 1500 : 50,
    }));
    const originals = podUids(h, ns);
    const selectors = APPS.map((app) => ({
      namespace: ns,
      labels: { app },
      waitForReplicas: app === 'istiod' || app === 'gateway' ? 2 : 0,
      maxUnavailable: 1,
    }));
    h.sim.applyDirective(concurrentDirective(ns, 'mesh', selectors, 3));
    expect((await h.post({ directive: { namespace: ns, name: 'mesh' } })).status).toBe(202);

    const failed = await waitForState(h, ns, 'mesh', 'FAILED');
    expect(failed.status.error).toMatch(/^selector 1: timed out after 2s/);
    // a1 and a2 were in progress when it failed, not done.
    expect(failed.status.podsBounced[2].bouncedPods).toHaveLength(4);
    // a1 and a2 stop before their next batch: their jobs fail too, and bounce nothing more.
    const deletedOf = (app: string): number =>
      h.sim.deletedPods().filter((pod) => pod.name.startsWith(`${app}-`)).length;
    await waitForRunOver(h, ns, 'mesh');
    const halted = deletedOf('a1') + deletedOf('a2');
    expect(halted).toBeLessThan(8);
    // Longer than a replacement takes: a selector that went on would have sent its next batch.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(deletedOf('a1') + deletedOf('a2')).toBe(halted);
    const states = (await runJobs(h, ns, 'mesh')).map((job) => job.state);
    expect(states.slice(1)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
    const still = h.sim.getDirective(ns, 'mesh') as any;
    expect(still.status).toMatchObject({ state: 'FAILED', error: failed.status.error });
    expect(still.status.podsBounced[2].bouncedPods).toHaveLength(4);
    // The gateway waits for every earlier selector, the failed one included; b0 for the gateway.
    expect(deletedOf('gateway')).toBe(0);
    expect(deletedOf('b0')).toBe(0);

    h.sim.setReadinessDelay(ns, 'stuck', 0);
    const retry = await retryRun(h, ns, 'mesh');
    expect(retry.status).toBe(202);
    await waitForState(h, ns, 'mesh', 'FINISHED', 30_000, false);
    expectEachDeletedOnce(h, originals);
  });

  it('abort stops every selector in progress before its next batch; a retry finishes the run', async () => {
    const ns = 'aborted';
    const apps = ['c0', 'c1', 'c2', 'c3'];
    addApps(h, ns, apps, () => ({ replicas: 4, readinessDelayMs: 400 }));
    const originals = podUids(h, ns);
    const selectors = apps.map((app) => ({
      namespace: ns,
      labels: { app },
      waitForReplicas: 0,
      maxUnavailable: 1,
    }));
    h.sim.applyDirective(concurrentDirective(ns, 'mesh', selectors, 2));
    const deleted = (): number => h.sim.deletedPods().filter((pod) => pod.namespace === ns).length;
    let atAbort = -1;
    const aborting = new Promise<void>((resolve) => {
      const stop = h.sim.onPodDeleted((pod) => {
        if (pod.namespace !== ns || deleted() < 2) return;
        stop();
        atAbort = deleted();
        void fetch(`${h.serve.url}/v1/directives/${ns}/mesh/abort`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
        }).then(() => resolve());
      });
    });
    expect((await h.post({ directive: { namespace: ns, name: 'mesh' } })).status).toBe(202);
    await aborting;
    const failed = await waitForState(h, ns, 'mesh', 'FAILED');
    expect(failed.status.error).toMatch(/^selector \d: aborted$/);
    // Each of the two selectors in progress may finish the batch it had sent, no more.
    await waitForRunOver(h, ns, 'mesh');
    expect(deleted()).toBeLessThanOrEqual(atAbort + 2);
    const retry = await retryRun(h, ns, 'mesh');
    expect(retry.status).toBe(202);
    await waitForState(h, ns, 'mesh', 'FINISHED', 30_000, false);
    const earlier = h.sim.deletedPods().filter((pod) => pod.namespace !== ns);
    expectEachDeletedOnce(
      h,
      originals,
      earlier.map((pod) => pod.uid),
    );
  });
});
