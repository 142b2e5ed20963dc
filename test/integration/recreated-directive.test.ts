// DESIGN §4 Guarantees: never more than maxUnavailable of a selector's pods down because of
// pod-bouncer. A directive deleted and re-created under its name mid-run (`kubectl replace
// --force`: a new uid), then sent an event: the old uid's run stops, and the pods it took down
// count as down for the new uid's run until their replacements are Ready, whether still
// terminating or already gone. Sampled on every pod event and deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPodReady } from '../../src/sim/pod-factory.js';
import { probeAvailability } from '../support/availability.js';
import { podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const REPLICAS = 8;
const MAX_UNAVAILABLE = 2;
const TRIALS = 2;

describe('a directive re-created under its name mid-run', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('recreated-directive');
  });
  afterAll(async () => h.close());

  it('keeps the selector within maxUnavailable across both uids', async () => {
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const namespace = `recreated-${trial}`;
      const labels = { app: 'web' };
      // Even trials: the old run's batch still terminating when the new run starts; odd: gone.
      const gone = trial % 2 === 1;
      h.sim.addWorkload({
        namespace,
        name: 'web',
        kind: 'ReplicaSet',
        labels,
        replicas: REPLICAS,
        readinessDelayMs: 2000,
        terminationGraceMs: gone ? 200 : 3000,
      });
      await eventually(`${REPLICAS} pods Ready in ${namespace}`, () => {
        const ready = h.sim.listPods(namespace, labels).filter((pod) => isPodReady(pod));
        return ready.length === REPLICAS ? true : undefined;
      });
      const originals = podUids(h, namespace, labels);
      const manifest = directive(namespace, 'certs', [
        { namespace, labels, waitForReplicas: REPLICAS, maxUnavailable: MAX_UNAVAILABLE },
      ]);
      const oldUid = h.sim.applyDirective(manifest).metadata.uid;
      const probe = await probeAvailability(h, namespace, labels, REPLICAS);
      const post = () => h.post({ directive: { namespace, name: 'certs' } });
      expect((await post()).status).toBe(202);
      await eventually(`the first batch evicted in ${namespace}`, () => {
        const listed = new Set(podUids(h, namespace, labels));
        const down = originals.filter(
          (uid) => h.sim.deletionsByUid().has(uid) && !(gone && listed.has(uid)),
        );
        return down.length >= MAX_UNAVAILABLE ? true : undefined;
      });

      h.sim.deleteDirective(namespace, 'certs');
      const newUid = h.sim.applyDirective(manifest).metadata.uid;
      expect(newUid).not.toBe(oldUid);
      expect((await post()).status).toBe(202);
      await waitForState(h, namespace, 'certs', 'FINISHED', 90_000);
      expect(h.sim.getDirective(namespace, 'certs')?.metadata.uid).toBe(newUid);
      probe.stop();
      console.log(
        `${namespace}: most pods down at once ${probe.maxUnavailable} of ${REPLICAS}, ${probe.samples} samples`,
      );
      expect(probe.samples).toBeGreaterThan(10);
      expect(probe.maxUnavailable, namespace).toBeLessThanOrEqual(MAX_UNAVAILABLE);
      // Every original went once; the old run's replacements, there before the new uid's event,
      // are the new run's to bounce too: once each.
      const deletions = h.sim.deletionsByUid();
      const requests = h.sim.deleteRequestsByUid();
      expect(originals.filter((uid) => deletions.get(uid) !== 1)).toEqual([]);
      expect([...requests.entries()].filter(([, count]) => count !== 1)).toEqual([]);
      expect([...deletions.entries()].filter(([, count]) => count !== 1)).toEqual([]);
    }
  }, 240_000);
});
