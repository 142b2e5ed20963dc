// DESIGN §4: with no bounceMode and no maxUnavailable, pods are evicted in batches of 25%, and a
// PodDisruptionBudget is honoured: a 429 parks the job until the pods change, then it tries again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAvailability } from '../support/availability.js';
import { podUids } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

describe('the default bounce: evictions under a PodDisruptionBudget', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('evict-default');
  });
  afterAll(async () => h.close());

  it('never violates the budget (maxUnavailable 1), is refused with 429s and still finishes', async () => {
    const namespace = 'istio-ingress';
    const labels = { app: 'ingress-gateway' };
    h.sim.addWorkload({
      namespace,
      name: 'ingress-gateway',
      kind: 'ReplicaSet',
      labels,
      replicas: 8,
      readinessDelayMs: 150,
      terminationGraceMs: 50,
    });
    h.sim.addPodDisruptionBudget({ namespace, name: 'gateway-pdb', labels, maxUnavailable: 1 });
    const originals = podUids(h, namespace, labels);
    h.sim.applyDirective(
      directive(namespace, 'gateways', [{ namespace, labels, waitForReplicas: 8 }]),
    );
    const probe = await probeAvailability(h, namespace, labels, 8);
    h.sim.resetRequests();
    expect((await h.post({ directive: { namespace, name: 'gateways' } })).status).toBe(202);
    await waitForState(h, namespace, 'gateways', 'FINISHED');
    probe.stop();

    const evictions = h.sim.requests().filter((r) => r.subresource === 'eviction');
    const refused = evictions.filter((r) => r.status === 429);
    console.log(
      `PDB maxUnavailable 1, default 25% of 8: max unavailable observed ${probe.maxUnavailable}; ${evictions.length} eviction requests, ${refused.length} refused with 429`,
    );
    // No DELETE: the default mode goes through the Eviction API.
    expect(h.sim.requests().filter((r) => r.method === 'DELETE' && r.resource === 'pods')).toEqual(
      [],
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(probe.maxUnavailable).toBe(1);
    // Each pod evicted once; a refused eviction changed nothing (every request resolved to an original).
    const landed = h.sim.deletionsByUid();
    expect(originals.filter((uid) => landed.get(uid) !== 1)).toEqual([]);
    expect([...landed.keys()].filter((uid) => !originals.includes(uid))).toEqual([]);
    expect(evictions.length).toBe(originals.length + refused.length);
  });
});
