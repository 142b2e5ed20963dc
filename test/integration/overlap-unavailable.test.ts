// DESIGN §4 Guarantees: never more than maxUnavailable of a selector's pods down because of
// pod-bouncer, also with maxConcurrentSelectors K > 1 and selectors whose pods overlap: the pods a
// sibling selector of the run took down count against a selector's budget, and its own against
// the sibling's. [app=web, 2] and [every pod of the namespace, 2] run side by side, in either
// order; the namespace's 8 pods (a ReplicaSet's and a StatefulSet's, whose replacements reuse the
// names), and web's 4, are sampled on every pod event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAvailability } from '../support/availability.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

const TRIALS = 3;
const MAX_UNAVAILABLE = 2;

describe('overlapping selectors in progress at once', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('overlap-unavailable');
  });
  afterAll(async () => h.close());
  const earlier: string[] = [];

  const cases = [
    { mode: 'evict', webFirst: true },
    { mode: 'delete', webFirst: true },
    { mode: 'evict', webFirst: false },
  ] as const;
  for (const { mode, webFirst } of cases) {
    const order = webFirst ? 'web, then all' : 'all, then web';
    it(`${mode}, ${order}: no selector has more than maxUnavailable of its pods down`, async () => {
      for (let trial = 0; trial < TRIALS; trial += 1) {
        const namespace = `overlap-${mode}-${webFirst ? 'web' : 'all'}-${trial}`;
        for (const app of ['web', 'api']) {
          h.sim.addWorkload({
            namespace,
            name: app,
            kind: app === 'web' ? 'ReplicaSet' : 'StatefulSet',
            labels: { app },
            replicas: 4,
            // Replacements take a while: both selectors send while the first batches are down.
            readinessDelayMs: 400,
            terminationGraceMs: 100,
          });
        }
        const originals = podUids(h, namespace, {});
        const selector = { namespace, waitForReplicas: 0, maxUnavailable: MAX_UNAVAILABLE };
        const web = { ...selector, labels: { app: 'web' }, bounceMode: mode };
        const all = { ...selector, labels: {}, bounceMode: mode };
        const manifest = directive(namespace, 'certs', webFirst ? [web, all] : [all, web]);
        (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 2;
        h.sim.applyDirective(manifest);
        const everyPod = await probeAvailability(h, namespace, {}, 8);
        const webPods = await probeAvailability(h, namespace, { app: 'web' }, 4);
        expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
        await waitForState(h, namespace, 'certs', 'FINISHED');
        everyPod.stop();
        webPods.stop();
        const figures = `all ${everyPod.maxUnavailable}/8, web ${webPods.maxUnavailable}/4`;
        console.log(`${namespace}: most pods down at once: ${figures}`);
        expect(everyPod.maxUnavailable, namespace).toBeLessThanOrEqual(MAX_UNAVAILABLE);
        expect(webPods.maxUnavailable, namespace).toBeLessThanOrEqual(MAX_UNAVAILABLE);
        expectEachDeletedOnce(h, originals, earlier);
        earlier.push(...originals);
        h.sim.deleteDirective(namespace, 'certs');
      }
    }, 90_000);
  }
});
