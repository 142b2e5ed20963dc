// DESIGN §4 step 3: a batch waits for the replacements of the pods it took down. A pod that was
// already not Ready when the run chose it (a crash loop) was down before the run: bouncing it
// takes nothing down, and its replacement may crash-loop as well. Such a pod was owed a Ready
// replacement all the same, so every rotation of a workload with one crash-looping pod ended
// FAILED at the readiness timeout, with the healthy pods all replaced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPodReady, isTerminating } from '../../src/sim/pod-factory.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

describe('a pod not Ready when chosen is owed no Ready replacement', () => {
  let h: Harness;
  beforeAll(async () => {
    // Short, so that a wait for a replacement that never turns Ready fails within the test.
    h = await startHarness('unready-at-choice', { env: { READINESS_TIMEOUT_SECONDS: '4' } });
  });
  afterAll(async () => h.close());

  for (const mode of ['evict', 'delete'] as const) {
    it(`${mode}: one crash-looping pod among four, FINISHED with each pod bounced once`, async () => {
      const namespace = `unready-${mode}`;
      const labels = { app: 'web' };
      const shape = { namespace, kind: 'ReplicaSet', readinessDelayMs: 300 } as const;
      h.sim.addWorkload({
        ...shape,
        name: 'good',
        labels: { ...labels, tier: 'good' },
        replicas: 3,
      });
      // Its replacements never turn Ready either: the crash loop is in its template.
      h.sim.addWorkload({
        ...shape,
        name: 'bad',
        labels: { ...labels, tier: 'bad' },
        replicas: 1,
        readinessDelayMs: null,
      });
      const [looping] = h.sim.listPods(namespace, { tier: 'bad' });
      h.sim.failReadiness(namespace, looping!.metadata.name);
      const originals = h.sim.listPods(namespace, labels).map((pod) => pod.metadata.uid);
      h.sim.applyDirective(
        directive(namespace, 'certs', [{ namespace, labels, maxUnavailable: 1, bounceMode: mode }]),
      );
      expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
      const ended = await Promise.race([
        waitForState(h, namespace, 'certs', 'FINISHED', 60_000),
        waitForState(h, namespace, 'certs', 'FAILED', 60_000),
      ]);
      expect(ended.status.error ?? '', `${namespace}: the run's error`).toBe('');
      expect(ended.status.state).toBe('FINISHED');
      const requests = h.sim.deleteRequestsByUid();
      for (const uid of originals) expect(requests.get(uid), `requests for ${uid}`).toBe(1);
      const up = h.sim
        .listPods(namespace, { tier: 'good' })
        .filter((pod) => isPodReady(pod) && !isTerminating(pod));
      expect(up.length, `${namespace}: healthy replacements Ready at FINISHED`).toBe(3);
    }, 90_000);
  }
});
