// apps/v1 as an API: discovery, list with label selectors, watch, delete with its garbage
// collection, validation; and the fixture side (addWorkload, restartWorkload, workloadRollout).
import { afterEach, describe, expect, it } from 'vitest';
import { apiError, recordWatch, waitFor } from './sim-clients.js';
import type { AppsClients } from './sim-rollouts.js';
import { MERGE, startWithApps, waitForRollout } from './sim-rollouts.js';

const NS = 'shop';

describe('simulator: apps/v1 API', () => {
  let c: AppsClients;
  afterEach(async () => {
    await c.sim.close();
  });

  it('serves apps/v1 in discovery, lists by label, watches, and collects a deleted Deployment’s ReplicaSets and pods', async () => {
    c = await startWithApps();
    const resources = await c.apps.getAPIResources();
    expect(resources.resources.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'deployments',
        'deployments/status',
        'replicasets',
        'statefulsets',
        'daemonsets',
      ]),
    );
    c.sim.addWorkload({
      namespace: NS,
      name: 'web',
      kind: 'Deployment',
      labels: { app: 'web' },
      replicas: 2,
    });
    c.sim.addWorkload({
      namespace: NS,
      name: 'api',
      kind: 'ReplicaSet',
      labels: { app: 'api' },
      replicas: 1,
    });
    const listed = await c.apps.listNamespacedDeployment({
      namespace: NS,
      labelSelector: 'app=web',
    });
    expect(listed.items.map((d) => d.metadata?.name)).toEqual(['web']);

    const watch = await recordWatch(c.kc, `/apis/apps/v1/namespaces/${NS}/deployments`, {
      resourceVersion: listed.metadata!.resourceVersion!,
    });
    await c.apps.patchNamespacedDeployment(
      { namespace: NS, name: 'web', body: { spec: { replicas: 3 } } },
      MERGE,
    );
    await waitForRollout(c, 'Deployment', NS, 'web');
    await waitFor(() => watch.events.some((e) => e.type === 'MODIFIED'));
    watch.stop();
    expect(c.sim.listPods(NS, { app: 'web' })).toHaveLength(3);

    await c.apps.deleteNamespacedDeployment({ namespace: NS, name: 'web' });
    expect(c.sim.listPods(NS, { app: 'web' })).toHaveLength(0);
    const sets = await c.apps.listNamespacedReplicaSet({ namespace: NS });
    expect(sets.items.map((rs) => rs.metadata?.labels?.app)).toEqual(['api']);
  });

  it('refuses a selector that does not match the template labels', async () => {
    c = await startWithApps();
    const body = await apiError(
      c.apps.createNamespacedDeployment({
        namespace: NS,
        body: {
          metadata: { name: 'bad' },
          spec: {
            selector: { matchLabels: { app: 'x' } },
            template: { metadata: { labels: { app: 'y' } } },
          },
        },
      }),
      422,
    );
    expect(body.message).toContain('spec.template.metadata.labels');
  });

  it('fixtures: restartWorkload rolls a workload once and workloadRollout reads it as kubectl does', async () => {
    c = await startWithApps({ nodes: 2 });
    c.sim.addWorkload({
      namespace: NS,
      name: 'web',
      kind: 'ReplicaSet',
      labels: { app: 'web' },
      replicas: 2,
      readinessDelayMs: 10,
    });
    c.sim.addWorkload({
      namespace: NS,
      name: 'agent',
      kind: 'DaemonSet',
      labels: { app: 'agent' },
      replicas: 0,
    });
    expect(
      c.sim
        .listPods(NS, { app: 'agent' })
        .map((p) => p.spec.nodeName)
        .sort(),
    ).toEqual(['sim-node-1', 'sim-node-2']);
    expect(c.sim.workloadRollout('Deployment', NS, 'web').done).toBe(true);
    const before = c.sim.listPods(NS, { app: 'web' }).map((p) => p.metadata.uid);

    c.sim.restartWorkload('Deployment', NS, 'web', '2026-04-04T00:00:00Z');
    expect(c.sim.workloadRollout('Deployment', NS, 'web')).toMatchObject({ done: false });
    await waitFor(() => c.sim.workloadRollout('Deployment', NS, 'web').done);
    const after = c.sim.listPods(NS, { app: 'web' }).map((p) => p.metadata.uid);
    expect(after.filter((uid) => before.includes(uid))).toEqual([]);
    expect(c.sim.getWorkload('Deployment', NS, 'web')?.metadata.generation).toBe(2);
  });
});
