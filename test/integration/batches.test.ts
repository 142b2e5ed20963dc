// DESIGN §4 step 3: a selector's pods go in batches of maxUnavailable, each batch after the first
// only once the replacements of the pods bounced so far are Ready. Availability is sampled on
// every pod event of a watch; the default mode (evict) is used throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAvailability } from '../support/availability.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

describe('batches of maxUnavailable', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('batches');
  });
  afterAll(async () => h.close());
  /** Originals of the earlier cases on the same simulator, checked by those cases. */
  const earlier: string[] = [];

  async function run(name: string, maxUnavailable: number | string, replicas = 10) {
    const namespace = `ns-${name}`;
    const labels = { app: name };
    h.sim.addWorkload({
      namespace,
      name,
      kind: 'ReplicaSet',
      labels,
      replicas,
      readinessDelayMs: 150,
      terminationGraceMs: 50,
    });
    const originals = podUids(h, namespace, labels);
    h.sim.applyDirective(
      directive(namespace, name, [
        { namespace, labels, waitForReplicas: replicas, maxUnavailable },
      ]),
    );
    const probe = await probeAvailability(h, namespace, labels, replicas);
    h.sim.resetRequests();
    expect((await h.post({ directive: { namespace, name } })).status).toBe(202);
    await waitForState(h, namespace, name, 'FINISHED');
    probe.stop();
    expectEachDeletedOnce(h, originals, earlier);
    earlier.push(...originals);
    const evictions = h.sim.requests().filter((r) => r.subresource === 'eviction');
    return { probe, evictions: evictions.length, requests: h.sim.requests().length };
  }

  it('never has more than maxUnavailable (2) of 10 pods down, bouncing each once', async () => {
    const { probe, evictions, requests } = await run('two', 2);
    console.log(
      `maxUnavailable 2 of 10: max unavailable observed ${probe.maxUnavailable} over ${probe.samples} samples; ${evictions} evictions, ${(requests / 10).toFixed(1)} requests per pod`,
    );
    expect(evictions).toBe(10);
    expect(probe.samples).toBeGreaterThan(20);
    // The bound holds, and the batches use it (a run one pod at a time would show 1).
    expect(probe.maxUnavailable).toBe(2);
  });

  it('turns a percentage into a count rounded down: 35% of 10 is 3', async () => {
    const { probe } = await run('pct', '35%');
    console.log(`maxUnavailable 35% of 10: max unavailable observed ${probe.maxUnavailable}`);
    expect(probe.maxUnavailable).toBe(3);
  });

  it('bounces a StatefulSet in descending ordinal order, one at a time', async () => {
    const namespace = 'ns-sts';
    const labels = { app: 'db' };
    h.sim.addWorkload({
      namespace,
      name: 'db',
      kind: 'StatefulSet',
      labels,
      replicas: 4,
      readinessDelayMs: 100,
      terminationGraceMs: 50,
    });
    const originals = podUids(h, namespace, labels);
    h.sim.applyDirective(
      directive(namespace, 'db', [{ namespace, labels, waitForReplicas: 4, maxUnavailable: 1 }]),
    );
    const probe = await probeAvailability(h, namespace, labels, 4);
    expect((await h.post({ directive: { namespace, name: 'db' } })).status).toBe(202);
    await waitForState(h, namespace, 'db', 'FINISHED');
    probe.stop();
    expectEachDeletedOnce(h, originals, earlier);
    const order = h.sim
      .deletedPods()
      .filter((pod) => originals.includes(pod.uid))
      .map((pod) => pod.name);
    expect(order).toEqual(['db-3', 'db-2', 'db-1', 'db-0']);
    expect(probe.maxUnavailable).toBe(1);
  });
});
