// DESIGN §4 Guarantees: never more than maxUnavailable of a selector's pods down because of
// pod-bouncer, whichever run took them down. A workload created in the second its first run sends
// its first batch in: creationTimestamp (whole seconds) cannot tell its pods from that batch's
// replacements, yet a later run that chose the pods not reached yet must still count the batch
// as down. Pods down are sampled on every pod event and every deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAvailability } from '../support/availability.js';
import { podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const REPLICAS = 4;
const MAX_UNAVAILABLE = 2;
const ATTEMPTS = 6;
const labels = { app: 'reviews' };

const secondOf = (at: number): number => Math.floor(at / 1000) * 1000;

/** Resolves early in a second, so that the workload and the first batch share it. */
async function startOfASecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
}

function createdAt(pod: { metadata: { creationTimestamp: string } }): number {
  return Date.parse(pod.metadata.creationTimestamp);
}

describe('a run superseding one whose first batch went out in its pods’ creation second', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('racing-same-second');
  });
  afterAll(async () => h.close());

  it('counts that batch as down: never more than maxUnavailable, each pod once', async () => {
    // Each attempt: a fresh workload at the start of a second and a run at once. The evictions
    // take effect 1.1 s after they arrive, so the replacements are a second younger than the
    // originals and a later issuedAt can leave them out. An attempt whose first eviction arrived
    // in a later second than the pods were created in is left to finish, and another is made.
    let namespace = '';
    let originals: string[] = [];
    for (let attempt = 0; ; attempt += 1) {
      expect(attempt, 'an attempt whose first batch shares its pods’ second').toBeLessThan(
        ATTEMPTS,
      );
      namespace = `same-second-${attempt}`;
      h.sim.applyDirective(
        directive(namespace, 'certs', [
          { namespace, labels, waitForReplicas: REPLICAS, maxUnavailable: MAX_UNAVAILABLE },
        ]),
      );
      h.sim.setFaults({ latencyMs: 1100, resources: ['eviction'] });
      await startOfASecond();
      h.sim.addWorkload({
        namespace,
        name: 'reviews',
        kind: 'ReplicaSet',
        labels,
        replicas: REPLICAS,
        // Replacements are Ready long after the later run chose: its batch gate must hold.
        readinessDelayMs: 6000,
        terminationGraceMs: 100,
      });
      const created = secondOf(Date.now());
      const target = { namespace, name: 'certs' };
      const first = await h.post({
        directive: target,
        issuedAt: new Date(created + 1).toISOString(),
      });
      expect(first.status).toBe(202);
      originals = podUids(h, namespace, labels);
      expect(h.sim.listPods(namespace, labels).map(createdAt)).toEqual(
        Array(REPLICAS).fill(created),
      );
      const eviction = await eventually(`${namespace}: the first batch's evictions`, () => {
        const sent = h.sim
          .requests()
          .filter(
            (entry) => entry.subresource === 'eviction' && entry.path.includes(`/${namespace}/`),
          );
        return sent.length >= MAX_UNAVAILABLE ? sent[0] : undefined;
      });
      const replacements = await eventually(`${namespace}: the first batch's replacements`, () => {
        const fresh = h.sim
          .listPods(namespace, labels)
          .filter((pod) => !originals.includes(pod.metadata.uid));
        return fresh.length >= MAX_UNAVAILABLE ? fresh : undefined;
      });
      h.sim.setFaults(null);
      if (secondOf(eviction.at) !== created) continue;
      const probe = await probeAvailability(h, namespace, labels, REPLICAS);
      // Later than the originals, not later than the replacements: the later run chooses the two
      // originals the first run has not reached, and none of its replacements.
      const issuedAt = new Date(Math.min(...replacements.map(createdAt))).toISOString();
      expect(Date.parse(issuedAt)).toBeGreaterThan(created);
      expect((await h.post({ directive: target, issuedAt })).status).toBe(202);
      await eventually(
        `${namespace}: the run of ${issuedAt} to finish`,
        () => {
          const status = h.sim.getDirective(namespace, 'certs')?.status;
          return status?.state === 'FINISHED' && status.issuedAt === issuedAt ? true : undefined;
        },
        40_000,
      );
      await waitForState(h, namespace, 'certs', 'FINISHED');
      probe.stop();
      console.log(
        `${namespace}: max unavailable ${probe.maxUnavailable} of ${REPLICAS} over ${probe.samples} samples`,
      );
      expect(probe.samples).toBeGreaterThan(4);
      expect(probe.maxUnavailable).toBeLessThanOrEqual(MAX_UNAVAILABLE);
      break;
    }
    // Each original evicted once, no replacement touched.
    const requests = h.sim.deleteRequestsByUid();
    const mine = h.sim.deletedPods().filter((pod) => pod.namespace === namespace);
    expect(mine.map((pod) => pod.uid).sort()).toEqual([...originals].sort());
    for (const uid of originals) expect(requests.get(uid), uid).toBe(1);
  }, 120_000);
});
