// DESIGN §4 step 3, bounceMode rollout: owners are restarted the way `kubectl rollout restart`
// does it (the template's restartedAt), once per owner and run, at most maxUnavailable owners at
// once; the controllers' own strategies replace the pods; FINISHED only once every rollout is
// complete by kubectl's rules (checked here from the pods themselves). A bare pod is evicted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PodObject } from '../../src/sim/index.js';
import { probeAvailability } from '../support/availability.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

const NS = 'rollouts';
// Spelled out here rather than imported: the checks below must not lean on the product's code.
const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

const controllerOf = (pod: PodObject) =>
  pod.metadata.ownerReferences?.find((ref) => ref.controller)?.name;
const isReady = (pod: PodObject) =>
  pod.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True');

/**
 * A workload's rollout is complete, judged from the simulator's own objects and not from
 * src/kube/rollout-status.ts (whose rules are the thing under test): exactly `replicas` pods, none
 * of them one the run chose, none terminating, every one Ready and made from the restarted
 * template (it carries the run's restartedAt).
 */
function expectReplaced(
  h: Harness,
  labels: Record<string, string>,
  replicas: number,
  run: { chosen: ReadonlySet<string>; restartedAt: string },
) {
  const pods = h.sim.listPods(NS, labels);
  const what = JSON.stringify(labels);
  expect(pods, what).toHaveLength(replicas);
  for (const pod of pods) {
    const { name, uid, deletionTimestamp, annotations } = pod.metadata;
    expect(run.chosen.has(uid), `${name} is a pod the run chose`).toBe(false);
    expect(deletionTimestamp, `${name} terminating`).toBeUndefined();
    expect(isReady(pod), `${name} Ready`).toBe(true);
    expect(Date.parse(annotations?.[RESTARTED_AT] ?? ''), `${name} restartedAt`).toBe(
      Date.parse(run.restartedAt),
    );
  }
  return pods;
}

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
    const before = h.sim.listPods(NS);
    const chosen = before.length;
    const webSets = new Set(
      before.filter((p) => p.metadata.labels.app === 'web').map(controllerOf),
    );
    h.sim.applyDirective(
      // The bare pod goes first, in a selector of its own: after the owners, in the same selector,
      // its batch would wait for their replacements and hide when the rollouts were judged done.
      directive(NS, 'restart', [
        { namespace: NS, labels: { app: 'bare' }, waitForReplicas: 0, bounceMode: 'rollout' },
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

    // FINISHED only once each rollout is complete: every pod replaced from the new template.
    // issuedAt was ahead of the clock: the run's, and its restartedAt, is the moment it was received.
    const run = {
      chosen: new Set(before.map((pod) => pod.metadata.uid)),
      restartedAt: posted.body.issuedAt as string,
    };
    const web = expectReplaced(h, { app: 'web' }, 4, run);
    // The Deployment's pods all belong to one new ReplicaSet; the old one is scaled to zero.
    const [newSet, ...others] = new Set(web.map(controllerOf));
    expect(others).toEqual([]);
    expect(webSets.has(newSet)).toBe(false);
    for (const old of webSets) {
      expect((h.sim.getWorkload('ReplicaSet', NS, old!) as any).spec.replicas, old).toBe(0);
    }
    const db = expectReplaced(h, { app: 'db' }, 3, run);
    expect(db.map((pod) => pod.metadata.name).sort()).toEqual(['db-0', 'db-1', 'db-2']);
    const agents = expectReplaced(h, { app: 'agent' }, h.sim.nodeNames().length, run);
    expect(new Set(agents.map((pod) => (pod as any).spec.nodeName)).size).toBe(agents.length);
    expect(h.sim.listPods(NS, { app: 'bare' })).toEqual([]);
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
