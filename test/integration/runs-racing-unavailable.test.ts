// DESIGN §2 Runs and §4 Guarantees: a newer run that supersedes an older one counts the pods the
// older run took down (terminating, or replaced by pods not Ready yet) against maxUnavailable.
// Availability is sampled on every pod event of a watch, as in batches.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAvailability } from '../support/availability.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const TRIALS = 3;
const REPLICAS = 6;
const MAX_UNAVAILABLE = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a burst of later issuances against slow readiness', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('racing-unavailable');
  });
  afterAll(async () => h.close());

  it('never has more than maxUnavailable pods down, and sends no pod a second eviction', async () => {
    const namespaces = Array.from({ length: TRIALS }, (_, trial) => `burst-${trial}`);
    const labels = { app: 'reviews' };
    for (const namespace of namespaces) {
      h.sim.addWorkload({
        namespace,
        name: 'reviews',
        kind: 'ReplicaSet',
        labels,
        replicas: REPLICAS,
        // Replacements take long to be Ready: later runs arrive while the first batch is down.
        readinessDelayMs: 1500,
        terminationGraceMs: 300,
      });
      h.sim.applyDirective(
        directive(namespace, 'certs', [
          { namespace, labels, waitForReplicas: REPLICAS, maxUnavailable: MAX_UNAVAILABLE },
        ]),
      );
    }
    // Every issuance is later than the pods' creation second and earlier than any replacement's.
    await sleep(1100);
    const second = Math.floor(Date.now() / 1000) * 1000;
    const earlier: string[] = [];
    for (const namespace of namespaces) {
      const originals = podUids(h, namespace, labels);
      const probe = await probeAvailability(h, namespace, labels, REPLICAS);
      // Ten events a few ms apart, each a later issuance, each before the one before it is answered.
      const answers = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          await sleep(i * 40);
          const issuedAt = new Date(second - 500 + i).toISOString();
          return h.post({ directive: { namespace, name: 'certs' }, issuedAt });
        }),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(202));
      const last = new Date(second - 500 + 9).toISOString();
      await eventually(`${namespace} to finish the run of ${last}`, () => {
        const status = h.sim.getDirective(namespace, 'certs')?.status;
        return status?.state === 'FINISHED' && status.issuedAt === last ? true : undefined;
      });
      await waitForState(h, namespace, 'certs', 'FINISHED');
      probe.stop();
      console.log(
        `${namespace}: max unavailable ${probe.maxUnavailable} of ${REPLICAS} over ${probe.samples} samples`,
      );
      expect(probe.samples).toBeGreaterThan(20);
      expect(probe.maxUnavailable).toBeLessThanOrEqual(MAX_UNAVAILABLE);
      expectEachDeletedOnce(h, originals, earlier);
      earlier.push(...originals);
    }
  });
});
