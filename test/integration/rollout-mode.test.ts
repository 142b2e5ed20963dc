// DESIGN §4 step 3, bounceMode rollout: owners are restarted the way `kubectl rollout restart`
// does it (the template's restartedAt), once per owner and run, at most maxUnavailable owners at
// once; the controllers' own strategies replace the pods; FINISHED only once every rollout is
// complete by kubectl's rules. A bare pod in the same selector is evicted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESTARTED_AT } from '../../src/kube/owners.js';
import { probeAvailability } from '../support/availability.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

const NS = 'rollouts';

describe('bounceMode rollout', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('rollout');
  });
  afterAll(async () => h.close());

  it('restarts each owner once, keeps the Deployment at capacity, evicts the bare pod', async () => {
    h.sim.addWorkload({
      namespace: NS,
      name: 'web',
      kind: 'Deployment',
      labels: { app: 'web' },
      replicas: 4,
      maxSurge: 1,
      maxUnavailable: 0,
      readinessDelayMs: 100,
    });
    h.sim.addWorkload({
      namespace: NS,
      name: 'db',
      kind: 'StatefulSet',
      labels: { app: 'db' },
      replicas: 3,
      readinessDelayMs: 100,
    });
    h.sim.addWorkload({
      namespace: NS,
      name: 'agent',
      kind: 'DaemonSet',
      labels: { app: 'agent' },
      replicas: 0,
      readinessDelayMs: 100,
    });
    const bare = h.sim.addPod({ namespace: NS, name: 'bare', labels: { app: 'bare' } });
    const chosen = h.sim.listPods(NS).length;
    h.sim.applyDirective(
      directive(NS, 'restart', [
        { namespace: NS, labels: {}, waitForReplicas: 0, bounceMode: 'rollout', maxUnavailable: 2 },
      ]),
    );
    const capacity = await probeAvailability(h, NS, { app: 'web' }, 4);
    h.sim.resetRequests();
    const issuedAt = new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const posted = await h.post({ directive: { namespace: NS, name: 'restart' }, issuedAt });
    expect(posted.status).toBe(202);
    await waitForState(h, NS, 'restart', 'FINISHED', 60_000);
    capacity.stop();

    // FINISHED only once each rollout is complete by kubectl's rules.
    for (const [kind, name] of [
      ['Deployment', 'web'],
      ['StatefulSet', 'db'],
      ['DaemonSet', 'agent'],
    ] as const) {
      expect(h.sim.workloadRollout(kind, NS, name).done, `${kind} ${name}`).toBe(true);
      const template = (h.sim.getWorkload(kind, NS, name) as any).spec.template.metadata;
      // issuedAt was ahead of the clock: the run's is the moment it was received.
      expect(Date.parse(template.annotations[RESTARTED_AT])).toBe(Date.parse(posted.body.issuedAt));
    }
    const requests = h.sim.requests().filter((r) => !r.watch);
    const patches = requests.filter(
      (r) =>
        r.method === 'PATCH' && ['deployments', 'statefulsets', 'daemonsets'].includes(r.resource),
    );
    // The template annotation set once per owner.
    expect(patches.map((r) => `${r.resource}/${r.name}`).sort()).toEqual([
      'daemonsets/agent',
      'deployments/web',
      'statefulsets/db',
    ]);
    // The Deployment's Ready capacity never fell below its replicas (maxUnavailable 0).
    expect(capacity.maxUnavailable).toBe(0);
    expect(capacity.samples).toBeGreaterThan(4);
    // The bare pod was evicted, the others were not touched one by one.
    const evictions = requests.filter((r) => r.subresource === 'eviction');
    expect(evictions.map((r) => r.name)).toEqual(['bare']);
    expect(h.sim.deletionsByUid().get(bare.metadata.uid)).toBe(1);
    console.log(
      `rollout mode: ${chosen} pods (3 owners + 1 bare), ${requests.length} requests, ${(requests.length / chosen).toFixed(1)} per pod (${patches.length} owner patches)`,
    );
  });
});
