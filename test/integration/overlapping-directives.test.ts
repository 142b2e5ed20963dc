// DESIGN §4 Guarantees: a pod already terminating or gone is never sent another DELETE or
// eviction, also by another directive. Two directives whose selectors cover the same 12 pods run
// at once: a pod one of them sent a bounce to counts as bounced for the other, which waits for its
// replacement instead of sending it again, and both runs FINISH.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApps } from '../support/workloads.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

const TRIALS = 5;
const REPLICAS = 12;

describe('directives whose selectors cover the same pods', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('overlapping-directives');
  });
  afterAll(async () => h.close());
  /** The originals of every trial so far: the request log is the simulator's, shared. */
  const earlier: string[] = [];

  it('sends every pod one DELETE or eviction in all, and both runs finish', async () => {
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const mode = trial % 2 === 0 ? 'delete' : 'evict';
      const namespace = `both-${mode}-${trial}`;
      const labels = { app: 'web' };
      // Slow terminations: a pod sent a bounce stays listed, terminating, while the other runs.
      addApps(h, namespace, ['web'], {
        replicas: REPLICAS,
        readinessDelayMs: 30,
        terminationGraceMs: 200,
      });
      const originals = podUids(h, namespace, labels);
      const selector = { namespace, labels, waitForReplicas: 0, maxUnavailable: 3 };
      const names = ['first', 'second'];
      for (const name of names) {
        h.sim.applyDirective(directive(namespace, name, [{ ...selector, bounceMode: mode }]));
      }
      const posted = await Promise.all(
        names.map((name) => h.post({ directive: { namespace, name } })),
      );
      expect(posted.map((response) => response.status)).toEqual([202, 202]);
      for (const name of names) await waitForState(h, namespace, name, 'FINISHED');
      expectEachDeletedOnce(h, originals, earlier);
      earlier.push(...originals);
      for (const name of names) h.sim.deleteDirective(namespace, name);
    }
  }, 180_000);
});
