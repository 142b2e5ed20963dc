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
  /** Originals of the earlier cases on the same simulator, checked by those cases. */
  const earlier: string[] = [];

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
  it('a new generation, sent while the first batch is down, counts that batch too', async () => {
    const namespace = 'generation';
    const labels = { app: 'ratings' };
    h.sim.addWorkload({
      namespace,
      name: 'ratings',
      kind: 'ReplicaSet',
      labels,
      replicas: REPLICAS,
      readinessDelayMs: 1500,
      terminationGraceMs: 300,
    });
    const selector = { namespace, labels, maxUnavailable: MAX_UNAVAILABLE };
    h.sim.applyDirective(directive(namespace, 'certs', [{ ...selector, waitForReplicas: 1 }]));
    const originals = podUids(h, namespace, labels);
    const probe = await probeAvailability(h, namespace, labels, REPLICAS);
    expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
    await eventually('the first batch to be sent', () =>
      h.sim.deletedPods().some((pod) => pod.namespace === namespace) ? true : undefined,
    );
    // A spec change: generation 2 supersedes the run whose first batch is not Ready yet.
    h.sim.applyDirective(directive(namespace, 'certs', [{ ...selector, waitForReplicas: 2 }]));
    const second = await h.post({ directive: { namespace, name: 'certs' } });
    expect(second.body.generation).toBe(2);
    await eventually('generation 2 to finish', () => {
      const status = h.sim.getDirective(namespace, 'certs')?.status;
      return status?.state === 'FINISHED' && status.observedGeneration === 2 ? true : undefined;
    });
    probe.stop();
    console.log(`${namespace}: max unavailable ${probe.maxUnavailable} of ${REPLICAS}`);
    expect(probe.maxUnavailable).toBeLessThanOrEqual(MAX_UNAVAILABLE);
    // Without an issuedAt, generation 2 bounces every pod it finds, the first run's replacements
    // included (the path where a run counts replacements it chose itself); each pod once.
    const gone = h.sim.deletedPods().filter((pod) => pod.namespace === namespace);
    expect(gone.map((pod) => pod.uid)).toEqual(expect.arrayContaining(originals));
    const requests = h.sim.deleteRequestsByUid();
    for (const pod of gone) expect(requests.get(pod.uid), pod.name).toBe(1);
  });

  it('a replacement bounced again by a later run is one slot: the run after a chain goes on', async () => {
    // Each run bounces a batch or two and is superseded; the next one bounces the replacements
    // (created before its issuedAt). The last run must not wait for replacements of both a pod
    // and its replacement: only one pod holds that slot now.
    const namespace = 'chain';
    const labels = { app: 'details' };
    const replicas = 20;
    h.sim.addWorkload({
      namespace,
      name: 'details',
      kind: 'ReplicaSet',
      labels,
      replicas,
      readinessDelayMs: 400,
      terminationGraceMs: 500,
    });
    h.sim.applyDirective(
      directive(namespace, 'certs', [{ namespace, labels, waitForReplicas: 0, maxUnavailable: 3 }]),
    );
    const probe = await probeAvailability(h, namespace, labels, replicas);
    // Every issuance below (a second before it is sent) is later than the pods' creation.
    await sleep(2100);
    let last = '';
    for (let round = 0; round < 4; round += 1) {
      last = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000).toISOString();
      const answer = await h.post({ directive: { namespace, name: 'certs' }, issuedAt: last });
      expect(answer.status).toBe(202);
      await sleep(1500);
    }
    // Stuck, it would wait READINESS_TIMEOUT_SECONDS (600 s) for replacements that never come.
    await eventually(`the run of ${last} to finish`, () => {
      const status = h.sim.getDirective(namespace, 'certs')?.status;
      return status?.state === 'FINISHED' && status.issuedAt === last ? true : undefined;
    });
    probe.stop();
    expect(probe.maxUnavailable).toBeLessThanOrEqual(3);
    const requests = h.sim.deleteRequestsByUid();
    const gone = h.sim.deletedPods().filter((pod) => pod.namespace === namespace);
    console.log(`${namespace}: ${gone.length} pods bounced for ${replicas} replicas`);
    // Some replacements were bounced again by a later run: the chain this case is about.
    expect(gone.length).toBeGreaterThan(replicas);
    for (const pod of gone) {
      expect(requests.get(pod.uid), pod.name).toBe(1);
    }
  });
});
