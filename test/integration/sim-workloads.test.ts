// The simulator's Deployments through client-node's AppsV1Api: a changed pod template rolls out
// the way the Deployment controller does it (maxSurge / maxUnavailable, Recreate), status fields
// reach what `kubectl rollout status` calls complete, and a restart patch rolls exactly once.
import { afterEach, describe, expect, it } from 'vitest';
import type { V1Deployment, V1DeploymentStrategy } from '@kubernetes/client-node';
import { apiError } from './sim-clients.js';
import type { AppsClients } from './sim-rollouts.js';
import {
  restartPatch,
  settle,
  startWithApps,
  STRATEGIC,
  trackPods,
  waitForRollout,
} from './sim-rollouts.js';

const NS = 'shop';
const LABELS = { app: 'web' };

function deployment(replicas: number, strategy?: V1DeploymentStrategy): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: LABELS },
      strategy,
      template: {
        metadata: { labels: LABELS },
        spec: { containers: [{ name: 'web', image: 'web:1' }] },
      },
    },
  };
}

async function rollOut(c: AppsClients, at: string): Promise<void> {
  await c.apps.patchNamespacedDeployment(
    { namespace: NS, name: 'web', body: restartPatch(at) },
    STRATEGIC,
  );
  await waitForRollout(c, 'Deployment', NS, 'web');
}

describe('simulator: Deployments', () => {
  let c: AppsClients;
  afterEach(async () => {
    await c.sim.close();
  });

  it('maxSurge 1, maxUnavailable 0: never fewer Ready pods than replicas, never more than replicas + 1', async () => {
    c = await startWithApps({ readinessDelayMs: 20 });
    await c.apps.createNamespacedDeployment({
      namespace: NS,
      body: deployment(4, {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
      }),
    });
    await waitForRollout(c, 'Deployment', NS, 'web');
    const before = c.sim.listPods(NS, LABELS).map((p) => p.metadata.name);
    const tracker = await trackPods(c, NS, 'app=web');

    await rollOut(c, '2026-01-01T00:00:00Z');
    await settle(c, tracker, NS, LABELS);
    tracker.stop();

    expect(Math.min(...tracker.samples.map((s) => s.ready))).toBe(4);
    expect(Math.max(...tracker.samples.map((s) => s.live))).toBe(5);
    expect(tracker.deletedInOrder.sort()).toEqual(before.sort());
    const after = c.sim.listPods(NS, LABELS);
    expect(after.filter((p) => before.includes(p.metadata.name))).toEqual([]);
    const sets = (
      await c.apps.listNamespacedReplicaSet({ namespace: NS, labelSelector: 'app=web' })
    ).items;
    expect(sets.map((rs) => rs.spec?.replicas).sort()).toEqual([0, 4]);
    const current = sets.find((rs) => rs.spec?.replicas === 4)!;
    expect(current.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Deployment',
      name: 'web',
      controller: true,
    });
    expect(after.every((p) => p.metadata.ownerReferences?.[0]?.uid === current.metadata?.uid)).toBe(
      true,
    );
    expect(
      after.every(
        (p) =>
          p.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'] === '2026-01-01T00:00:00Z',
      ),
    ).toBe(true);
    const d = await c.apps.readNamespacedDeployment({ namespace: NS, name: 'web' });
    expect(d.status).toMatchObject({
      observedGeneration: 2,
      replicas: 4,
      updatedReplicas: 4,
      readyReplicas: 4,
      availableReplicas: 4,
    });
    expect(d.status?.unavailableReplicas ?? 0).toBe(0);
    expect(d.status?.conditions?.find((x) => x.type === 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'NewReplicaSetAvailable',
    });
  });

  it('maxUnavailable 1, maxSurge 0: never more pods than replicas, never fewer than replicas - 1 Ready, and no PodDisruptionBudget holds it back', async () => {
    c = await startWithApps({ readinessDelayMs: 20 });
    c.sim.addPodDisruptionBudget({ namespace: NS, name: 'web', labels: LABELS, maxUnavailable: 0 });
    await c.apps.createNamespacedDeployment({
      namespace: NS,
      body: deployment(4, {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: 0, maxUnavailable: 1 },
      }),
    });
    await waitForRollout(c, 'Deployment', NS, 'web');
    const victim = c.sim.listPods(NS, LABELS)[0]!.metadata.name;
    await apiError(
      c.core.createNamespacedPodEviction({
        namespace: NS,
        name: victim,
        body: { metadata: { name: victim } },
      }),
      429,
    );
    const tracker = await trackPods(c, NS, 'app=web');

    await rollOut(c, '2026-01-01T00:00:00Z');
    await settle(c, tracker, NS, LABELS);
    tracker.stop();
    expect(Math.max(...tracker.samples.map((s) => s.live))).toBe(4);
    expect(Math.min(...tracker.samples.map((s) => s.ready))).toBe(3);
    expect(tracker.deletedInOrder).toHaveLength(4);
  });

  it('a restartedAt patch rolls out exactly once; the same patch again changes nothing', async () => {
    c = await startWithApps();
    await c.apps.createNamespacedDeployment({ namespace: NS, body: deployment(2, undefined) });
    await waitForRollout(c, 'Deployment', NS, 'web');
    const original = c.sim.listPods(NS, LABELS).map((p) => p.metadata.uid);

    await rollOut(c, '2026-02-02T00:00:00Z');
    const first = await c.apps.readNamespacedDeployment({ namespace: NS, name: 'web' });
    const replaced = c.sim.listPods(NS, LABELS).map((p) => p.metadata.uid);
    expect(first.metadata?.generation).toBe(2);
    expect(replaced.filter((uid) => original.includes(uid))).toEqual([]);

    const again = await c.apps.patchNamespacedDeployment(
      { namespace: NS, name: 'web', body: restartPatch('2026-02-02T00:00:00Z') },
      STRATEGIC,
    );
    expect(again.metadata?.generation).toBe(2);
    expect(again.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(
      c.sim
        .listPods(NS, LABELS)
        .map((p) => p.metadata.uid)
        .sort(),
    ).toEqual([...replaced].sort());
    const sets = await c.apps.listNamespacedReplicaSet({ namespace: NS });
    expect(sets.items).toHaveLength(2);
  });

  it('Recreate: every old pod is gone before the first new one exists', async () => {
    c = await startWithApps({ readinessDelayMs: 10 });
    await c.apps.createNamespacedDeployment({
      namespace: NS,
      body: deployment(3, { type: 'Recreate' }),
    });
    await waitForRollout(c, 'Deployment', NS, 'web');
    const before = c.sim.listPods(NS, LABELS).map((p) => p.metadata.name);
    const tracker = await trackPods(c, NS, 'app=web');

    await rollOut(c, '2026-03-03T00:00:00Z');
    await settle(c, tracker, NS, LABELS);
    tracker.stop();

    const firstNew = tracker.samples.findIndex((s) => s.names.some((n) => !before.includes(n)));
    expect(firstNew).toBeGreaterThan(0);
    expect(tracker.samples[firstNew - 1]!.live).toBe(0);
  });
});
