// The simulator's StatefulSets and DaemonSets through client-node's AppsV1Api: rolling updates in
// the order and at the pace their controllers keep, partitions, OnDelete, and the status fields
// `kubectl rollout status` reads.
import { afterEach, describe, expect, it } from 'vitest';
import type { V1DaemonSet, V1StatefulSet } from '@kubernetes/client-node';
import { waitFor } from './sim-clients.js';
import type { PodObject } from '../../src/sim/index.js';
import type { AppsClients } from './sim-rollouts.js';
import {
  MERGE,
  restartPatch,
  settle,
  startWithApps,
  STRATEGIC,
  trackPods,
  waitForRollout,
} from './sim-rollouts.js';

const NS = 'data';
const LABELS = { app: 'db' };
const TEMPLATE = {
  metadata: { labels: LABELS },
  spec: { containers: [{ name: 'db', image: 'db:1' }] },
};

function statefulSet(replicas: number): V1StatefulSet {
  return {
    metadata: { name: 'db', namespace: NS },
    spec: { replicas, serviceName: 'db', selector: { matchLabels: LABELS }, template: TEMPLATE },
  };
}

function isReady(pod: PodObject): boolean {
  return pod.status.conditions.some((x) => x.type === 'Ready' && x.status === 'True');
}

function uids(c: AppsClients): Map<string, string> {
  return new Map(c.sim.listPods(NS, LABELS).map((p) => [p.metadata.name, p.metadata.uid]));
}

describe('simulator: StatefulSets', () => {
  let c: AppsClients;
  afterEach(async () => {
    await c.sim.close();
  });

  it('creates ordinals in order and rolls 3, 2, 1, 0 one at a time, each once the previous is Ready', async () => {
    c = await startWithApps({ readinessDelayMs: 20 });
    const created = await trackPods(c, NS, 'app=db');
    await c.apps.createNamespacedStatefulSet({ namespace: NS, body: statefulSet(4) });
    await waitForRollout(c, 'StatefulSet', NS, 'db');
    await settle(c, created, NS, LABELS);
    created.stop();
    expect(created.createdInOrder).toEqual(['db-0', 'db-1', 'db-2', 'db-3']);
    // OrderedReady: a pod is created only once every lower ordinal is Ready.
    expect(Math.max(...created.samples.map((s) => s.live - s.ready))).toBe(1);

    const before = uids(c);
    const tracker = await trackPods(c, NS, 'app=db');
    await c.apps.patchNamespacedStatefulSet(
      { namespace: NS, name: 'db', body: restartPatch('2026-01-01T00:00:00Z') },
      STRATEGIC,
    );
    const message = await waitForRollout(c, 'StatefulSet', NS, 'db');
    await settle(c, tracker, NS, LABELS);
    tracker.stop();

    expect(tracker.deletedInOrder).toEqual(['db-3', 'db-2', 'db-1', 'db-0']);
    expect(Math.min(...tracker.samples.map((s) => s.ready))).toBe(3);
    const after = uids(c);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    expect([...after].filter(([name, uid]) => before.get(name) === uid)).toEqual([]);
    const sts = await c.apps.readNamespacedStatefulSet({ namespace: NS, name: 'db' });
    expect(sts.status).toMatchObject({
      observedGeneration: 2,
      replicas: 4,
      readyReplicas: 4,
      currentReplicas: 4,
      updatedReplicas: 4,
    });
    expect(sts.status?.currentRevision).toBe(sts.status?.updateRevision);
    expect(message).toBe('partitioned roll out complete: 4 new pods have been updated...');
  });

  it('partition 2 updates ordinals 3 and 2 only', async () => {
    c = await startWithApps();
    await c.apps.createNamespacedStatefulSet({ namespace: NS, body: statefulSet(4) });
    await waitForRollout(c, 'StatefulSet', NS, 'db');
    const before = uids(c);
    await c.apps.patchNamespacedStatefulSet(
      {
        namespace: NS,
        name: 'db',
        body: {
          spec: {
            updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
            template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': 'x' } } },
          },
        },
      },
      MERGE,
    );
    const message = await waitForRollout(c, 'StatefulSet', NS, 'db');
    const after = uids(c);
    const replaced = [...after].filter(([name, uid]) => before.get(name) !== uid).map(([n]) => n);
    expect(replaced.sort()).toEqual(['db-2', 'db-3']);
    const sts = await c.apps.readNamespacedStatefulSet({ namespace: NS, name: 'db' });
    expect(sts.status).toMatchObject({ updatedReplicas: 2, currentReplicas: 2, readyReplicas: 4 });
    expect(sts.status?.currentRevision).not.toBe(sts.status?.updateRevision);
    expect(message).toBe('partitioned roll out complete: 2 new pods have been updated...');

    // A deleted pod below the partition comes back at the current (old) revision.
    const old = c.sim.listPods(NS, LABELS).find((p) => p.metadata.name === 'db-0')!;
    await c.core.deleteNamespacedPod({ namespace: NS, name: 'db-0' });
    const back = c.sim.listPods(NS, LABELS).find((p) => p.metadata.name === 'db-0')!;
    expect(back.metadata.uid).not.toBe(old.metadata.uid);
    expect(back.metadata.labels['controller-revision-hash']).toBe(sts.status?.currentRevision);
  });

  it('OnDelete replaces nothing by itself; kubectl rollout status refuses it', async () => {
    c = await startWithApps();
    const body = statefulSet(2);
    body.spec!.updateStrategy = { type: 'OnDelete' };
    await c.apps.createNamespacedStatefulSet({ namespace: NS, body });
    await waitFor(() => c.sim.listPods(NS, LABELS).filter(isReady).length === 2);
    const before = uids(c);
    await c.apps.patchNamespacedStatefulSet(
      { namespace: NS, name: 'db', body: restartPatch('2026-01-01T00:00:00Z') },
      STRATEGIC,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(uids(c)).toEqual(before);
    expect(c.sim.workloadRollout('StatefulSet', NS, 'db')).toMatchObject({
      done: false,
      error: 'rollout status is only available for RollingUpdate strategy type',
    });
  });
});

describe('simulator: DaemonSets', () => {
  let c: AppsClients;
  afterEach(async () => {
    await c.sim.close();
  });

  it('runs one pod per node and rolls one node at a time', async () => {
    c = await startWithApps({ nodes: 4, readinessDelayMs: 20 });
    const body: V1DaemonSet = {
      metadata: { name: 'agent', namespace: NS },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { ...TEMPLATE, metadata: { labels: { app: 'agent' } } },
      },
    };
    await c.apps.createNamespacedDaemonSet({ namespace: NS, body });
    await waitForRollout(c, 'DaemonSet', NS, 'agent');
    const pods = c.sim.listPods(NS, { app: 'agent' });
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual(c.sim.nodeNames());

    const tracker = await trackPods(c, NS, 'app=agent');
    await c.apps.patchNamespacedDaemonSet(
      { namespace: NS, name: 'agent', body: restartPatch('2026-01-01T00:00:00Z') },
      STRATEGIC,
    );
    const message = await waitForRollout(c, 'DaemonSet', NS, 'agent');
    await settle(c, tracker, NS, { app: 'agent' });
    tracker.stop();

    expect(message).toBe('daemon set "agent" successfully rolled out');
    expect(tracker.deletedInOrder.sort()).toEqual(pods.map((p) => p.metadata.name).sort());
    expect(Math.min(...tracker.samples.map((s) => s.readyNodes.size))).toBe(3);
    expect(Math.max(...tracker.samples.flatMap((s) => [...s.perNode.values()]))).toBe(1);
    const ds = await c.apps.readNamespacedDaemonSet({ namespace: NS, name: 'agent' });
    expect(ds.status).toMatchObject({
      observedGeneration: 2,
      desiredNumberScheduled: 4,
      updatedNumberScheduled: 4,
      numberAvailable: 4,
      numberReady: 4,
    });
  });
});
