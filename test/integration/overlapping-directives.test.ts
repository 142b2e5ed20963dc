// DESIGN §4 Guarantees: a pod already terminating or gone is never sent another DELETE or
// eviction, also by another directive. Two directives whose selectors cover the same 12 pods run
// at once: a pod one of them sent a bounce to counts as bounced for the other, which waits for its
// replacement instead of sending it again, and both runs FINISH. Their selectors share
// maxUnavailable too (the second case).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPodReady } from '../../src/sim/pod-factory.js';
import { probeAvailability } from '../support/availability.js';
import { addApps } from '../support/workloads.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const TRIALS = 5;
const REPLICAS = 12;
const STAGGERED = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

  // DESIGN §4: never more than maxUnavailable of a selector's pods down because of pod-bouncer,
  // whichever directive took them down. The second directive's event arrives while the first has
  // a batch down (replacements Ready 2 s after an eviction): the first's pods count as down for
  // it until their replacements are Ready, whether still terminating or already gone (then known
  // by their owner), and the other's for the first. Sampled on every pod event and deletion.
  it('shares maxUnavailable: a directive started while another has a batch down counts it', async () => {
    for (let trial = 0; trial < STAGGERED; trial += 1) {
      const namespace = `staggered-${trial}`;
      const labels = { app: 'web' };
      // Even trials: the first batch still terminating when the second event arrives; odd: gone.
      const gone = trial % 2 === 1;
      const workload = { namespace, name: 'web', kind: 'Deployment', labels } as const;
      h.sim.addWorkload({
        ...workload,
        replicas: REPLICAS,
        readinessDelayMs: 2000,
        terminationGraceMs: gone ? 200 : 3000,
      });
      await eventually(`${REPLICAS} pods Ready in ${namespace}`, () => {
        const ready = h.sim.listPods(namespace, labels).filter((pod) => isPodReady(pod));
        return ready.length === REPLICAS ? true : undefined;
      });
      // One issuance for both: later than the pods' creation second, earlier than any replacement's.
      await sleep(1100);
      const issuedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 500).toISOString();
      const originals = podUids(h, namespace, labels);
      const selector = {
        namespace,
        labels,
        waitForReplicas: 0,
        maxUnavailable: 3,
        bounceMode: 'evict',
      };
      for (const name of ['first', 'second']) {
        h.sim.applyDirective(directive(namespace, name, [selector]));
      }
      const probe = await probeAvailability(h, namespace, labels, REPLICAS);
      const post = (name: string) => h.post({ directive: { namespace, name }, issuedAt });
      expect((await post('first')).status).toBe(202);
      await eventually(`the first batch evicted in ${namespace}`, () => {
        const listed = new Set(podUids(h, namespace, labels));
        const down = originals.filter(
          (uid) => h.sim.deletionsByUid().has(uid) && !(gone && listed.has(uid)),
        );
        return down.length >= 3 ? true : undefined;
      });
      expect((await post('second')).status).toBe(202);
      for (const name of ['first', 'second']) {
        await waitForState(h, namespace, name, 'FINISHED', 90_000);
      }
      probe.stop();
      console.log(
        `${namespace}: most pods down at once ${probe.maxUnavailable} of ${REPLICAS}, ${probe.samples} samples`,
      );
      expect(probe.samples).toBeGreaterThan(20);
      expect(probe.maxUnavailable, namespace).toBeLessThanOrEqual(3);
      expectEachDeletedOnce(h, originals, earlier);
      earlier.push(...originals);
    }
  }, 300_000);
});
