// bounceMode rollout with maxConcurrentSelectors > 1 and selectors of one run over the same
// Deployment: one rollout per owner and run, and the run FINISHES. A selector that chooses after
// another restarted the owner, within the second the run was accepted, must not choose the
// rollout's new pods (the acceptance cutoff cannot tell them from older ones): it would wait for
// them to be gone, which they never are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podUids } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

describe('rollout selectors of one run over the same owner', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('overlapping-rollouts');
  });
  afterAll(async () => h.close());

  it('K = 2: one rollout of the Deployment, every original pod replaced, FINISHED', async () => {
    for (let index = 0; index < 5; index += 1) {
      const namespace = `ro-${index}`;
      const labels = { app: 'web' };
      h.sim.addWorkload({
        namespace,
        name: 'web',
        kind: 'Deployment',
        labels,
        replicas: 4,
        maxSurge: 1,
        maxUnavailable: 0,
        readinessDelayMs: 50,
        terminationGraceMs: 100,
      });
      const originals = podUids(h, namespace, labels);
      const selector = { namespace, labels, waitForReplicas: 0, bounceMode: 'rollout' };
      const manifest = directive(namespace, 'r', [selector, selector, selector]);
      (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 2;
      h.sim.applyDirective(manifest);
      expect((await h.post({ directive: { namespace, name: 'r' } })).status).toBe(202);
      await waitForState(h, namespace, 'r', 'FINISHED', 20_000);
      const deployment = h.sim.getWorkload('Deployment', namespace, 'web') as any;
      expect(deployment.metadata.generation, 'one restart').toBe(2);
      const left = podUids(h, namespace, labels).filter((uid) => originals.includes(uid));
      expect(left).toEqual([]);
    }
  }, 150_000);
});
