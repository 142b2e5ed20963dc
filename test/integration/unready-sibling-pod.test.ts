// DESIGN §4: a pod not Ready when chosen (crash-looping) takes nothing down when bounced and owes
// no Ready replacement, also when another selector of the run sends it. [tier=front] and [every
// pod] run side by side (K = 2) and both choose flaky's crash-looping pod; whichever sends it,
// [every pod] must not count it against its maxUnavailable, nor wait for a replacement that
// never turns Ready. Before, the run ended FAILED at READINESS_TIMEOUT_SECONDS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAvailability } from '../support/availability.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a crash-looping pod two selectors of the run chose', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('unready-sibling-pod', { env: { READINESS_TIMEOUT_SECONDS: '20' } });
  });
  afterAll(async () => h.close());

  for (const [mode, frontLimit] of [
    ['evict', 2],
    ['delete', 1],
  ] as const) {
    it(`${mode}, [tier=front] at maxUnavailable ${frontLimit}: the run ends FINISHED`, async () => {
      const namespace = `unready-sibling-${mode}`;
      const add = (name: string, tier: string, replicas: number, delay: number | null) =>
        h.sim.addWorkload({
          namespace,
          name,
          kind: 'ReplicaSet',
          labels: { app: name, tier },
          replicas,
          readinessDelayMs: delay,
          terminationGraceMs: 100,
        });
      // Created a second apart: the bounce order (oldest first) sends flaky's pod early.
      add('cache', 'back', 2, 500);
      await sleep(1100);
      add('flaky', 'front', 1, null);
      await sleep(1100);
      add('web', 'front', 3, 500);
      await sleep(300);
      const flaky = h.sim.listPods(namespace, { app: 'flaky' })[0]!;
      h.sim.failReadiness(namespace, flaky.metadata.name);
      const everyPod = await probeAvailability(h, namespace, {}, 6);
      const selector = { namespace, waitForReplicas: 0, maxUnavailable: 2, bounceMode: mode };
      const manifest = directive(namespace, 'certs', [
        { ...selector, labels: { tier: 'front' }, maxUnavailable: frontLimit },
        { ...selector, labels: {} },
      ]);
      (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 2;
      h.sim.applyDirective(manifest);
      expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
      await waitForState(h, namespace, 'certs', 'FINISHED', 40_000);
      everyPod.stop();
      // flaky's pod was never available: two healthy pods down at most, and it.
      expect(everyPod.maxUnavailable).toBeLessThanOrEqual(3);
    }, 60_000);
  }
});
