// Pods through the real client-node: selectors, guarded deletion, owner controllers, eviction.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { apiError, startWithClients, waitFor } from './sim-clients.js';
import type { SimClients } from './sim-clients.js';

const NS = 'bookinfo';
const isReady = (pod: V1Pod) =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

describe('simulator: pods', () => {
  let c: SimClients;
  beforeEach(async () => {
    c = await startWithClients({ seed: 3 });
  });
  afterEach(async () => {
    await c.sim.close();
  });

  it('lists pods with label selectors', async () => {
    c.sim.addPod({ namespace: NS, name: 'a', labels: { app: 'web', tier: 'front' } });
    c.sim.addPod({ namespace: NS, name: 'b', labels: { app: 'web', tier: 'back' } });
    c.sim.addPod({ namespace: NS, name: 'c', labels: { app: 'db' } });
    c.sim.addPod({ namespace: 'other', name: 'd', labels: { app: 'web' } });
    const names = async (labelSelector: string) =>
      (await c.core.listNamespacedPod({ namespace: NS, labelSelector })).items.map(
        (p) => p.metadata?.name,
      );

    expect(await names('app=web')).toEqual(['a', 'b']);
    expect(await names('app==web,tier!=back')).toEqual(['a']);
    expect(await names('tier in (front, back)')).toEqual(['a', 'b']);
    expect(await names('tier notin (front)')).toEqual(['b', 'c']);
    expect(await names('tier')).toEqual(['a', 'b']);
    expect(await names('!tier')).toEqual(['c']);
    expect(await names('')).toEqual(['a', 'b', 'c']);
    const all = await c.core.listPodForAllNamespaces({ labelSelector: 'app=web' });
    expect(all.items.map((p) => p.metadata?.name)).toEqual(['a', 'b', 'd']);
    expect(Number(all.metadata?.resourceVersion)).toBeGreaterThan(0);
    const bad = await apiError(
      c.core.listNamespacedPod({ namespace: NS, labelSelector: 'app=(' }),
      400,
    );
    expect(bad.reason).toBe('BadRequest');
  });

  it('serves realistic pod objects', async () => {
    c.sim.addWorkload({
      namespace: NS,
      name: 'reviews',
      kind: 'ReplicaSet',
      labels: { app: 'reviews' },
      replicas: 1,
    });
    const [pod] = (await c.core.listNamespacedPod({ namespace: NS })).items;
    expect(pod?.metadata?.name).toMatch(/^reviews-[0-9a-f]{9}-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'ReplicaSet',
      controller: true,
    });
    expect(pod?.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(pod?.status?.phase).toBe('Running');
    expect(isReady(pod!)).toBe(true);
    expect(pod?.spec?.containers[0]?.name).toBe('reviews');
  });

  it('deletes with a uid precondition: success, then 409 on mismatch, 404 once gone', async () => {
    const pod = c.sim.addPod({ namespace: NS, name: 'solo', labels: { app: 'solo' } });
    const wrongUid = await apiError(
      c.core.deleteNamespacedPod({
        namespace: NS,
        name: 'solo',
        body: { preconditions: { uid: 'not-the-uid' } },
      }),
      409,
    );
    expect(wrongUid.reason).toBe('Conflict');
    expect(wrongUid.message).toContain(
      `Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${pod.metadata.uid}`,
    );
    expect(c.sim.listPods(NS)).toHaveLength(1);

    const deleted = await c.core.deleteNamespacedPod({
      namespace: NS,
      name: 'solo',
      body: { preconditions: { uid: pod.metadata.uid } },
    });
    expect(deleted.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    expect(c.sim.listPods(NS)).toEqual([]);

    const gone = await apiError(c.core.deleteNamespacedPod({ namespace: NS, name: 'solo' }), 404);
    expect(gone.reason).toBe('NotFound');
    expect(gone.message).toBe('pods "solo" not found');
    expect(c.sim.deletionsByUid().get(pod.metadata.uid)).toBe(1);
    expect(c.sim.deleteRequestsByUid().get(pod.metadata.uid)).toBe(2);
    expect(c.sim.deletedPods()).toEqual([
      expect.objectContaining({ namespace: NS, name: 'solo', uid: pod.metadata.uid }),
    ]);
  });

  it('answers a DELETE of a terminating pod with the pod and no new effect', async () => {
    c.sim.addWorkload({
      namespace: NS,
      name: 'slow',
      kind: 'ReplicaSet',
      labels: { app: 'slow' },
      replicas: 1,
      terminationGraceMs: 300,
    });
    const [pod] = c.sim.listPods(NS);
    const name = pod!.metadata.name;
    await c.core.deleteNamespacedPod({ namespace: NS, name });
    const again = await c.core.deleteNamespacedPod({ namespace: NS, name });
    expect(again.metadata?.uid).toBe(pod!.metadata.uid);
    expect(c.sim.deletionsByUid().get(pod!.metadata.uid)).toBe(1);
    expect(c.sim.deleteRequestsByUid().get(pod!.metadata.uid)).toBe(2);
    const live = c.sim.listPods(NS, { app: 'slow' });
    expect(live.map((p) => Boolean(p.metadata.deletionTimestamp)).sort()).toEqual([false, true]);
    await waitFor(() => c.sim.listPods(NS, { app: 'slow' }).length === 1);
  });

  it('replaces a ReplicaSet pod at once with a new name that turns Ready after the delay', async () => {
    c.sim.addWorkload({
      namespace: NS,
      name: 'reviews',
      kind: 'ReplicaSet',
      labels: { app: 'reviews' },
      replicas: 2,
      readinessDelayMs: 300,
    });
    const before = c.sim.listPods(NS, { app: 'reviews' });
    const victim = before[0]!;
    const startedAt = Date.now();
    await c.core.deleteNamespacedPod({
      namespace: NS,
      name: victim.metadata.name,
      body: { preconditions: { uid: victim.metadata.uid } },
    });

    const pods = (await c.core.listNamespacedPod({ namespace: NS, labelSelector: 'app=reviews' }))
      .items;
    expect(pods).toHaveLength(2);
    const replacement = pods.find(
      (p) => !before.some((b) => b.metadata.name === p.metadata?.name),
    )!;
    expect(replacement.metadata?.name).toMatch(/^reviews-[0-9a-f]{9}-[a-z0-9]{5}$/);
    expect(replacement.metadata?.uid).not.toBe(victim.metadata.uid);
    expect(replacement.metadata?.ownerReferences?.[0]?.uid).toBe(
      victim.metadata.ownerReferences?.[0]?.uid,
    );
    expect(isReady(replacement)).toBe(false);

    await waitFor(() =>
      c.sim
        .listPods(NS, { app: 'reviews' })
        .every((p) => p.status.conditions.some((x) => x.type === 'Ready' && x.status === 'True')),
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(250);
  });

  it('recreates a StatefulSet pod with the same name and a new uid once the old one is gone', async () => {
    c.sim.addWorkload({
      namespace: NS,
      name: 'ratings',
      kind: 'StatefulSet',
      labels: { app: 'ratings' },
      replicas: 2,
      terminationGraceMs: 200,
    });
    const old = c.sim
      .listPods(NS, { app: 'ratings' })
      .find((p) => p.metadata.name === 'ratings-0')!;
    expect(old.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'StatefulSet',
      name: 'ratings',
    });
    await c.core.deleteNamespacedPod({
      namespace: NS,
      name: 'ratings-0',
      body: { preconditions: { uid: old.metadata.uid } },
    });

    const terminating = await c.core.readNamespacedPod({ namespace: NS, name: 'ratings-0' });
    expect(terminating.metadata?.uid).toBe(old.metadata.uid);
    expect(terminating.metadata?.deletionTimestamp).toBeInstanceOf(Date);

    const fresh = await waitFor(() => {
      const pod = c.sim
        .listPods(NS, { app: 'ratings' })
        .find((p) => p.metadata.name === 'ratings-0');
      return pod && pod.metadata.uid !== old.metadata.uid ? pod : undefined;
    });
    expect(fresh.metadata.deletionTimestamp).toBeUndefined();
    // The old uid guard protects the replacement that reuses the name.
    await apiError(
      c.core.deleteNamespacedPod({
        namespace: NS,
        name: 'ratings-0',
        body: { preconditions: { uid: old.metadata.uid } },
      }),
      409,
    );
    expect(c.sim.deletionsByUid().get(fresh.metadata.uid)).toBeUndefined();
  });

  it('keeps replacements unready while the delay is null, then honours a new delay', async () => {
    c.sim.addWorkload({
      namespace: NS,
      name: 'web',
      kind: 'ReplicaSet',
      labels: { app: 'web' },
      replicas: 1,
      readinessDelayMs: null,
    });
    await c.core.deleteNamespacedPod({ namespace: NS, name: c.sim.listPods(NS)[0]!.metadata.name });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(
      c.sim.listPods(NS).map((p) => p.status.conditions.find((x) => x.type === 'Ready')?.status),
    ).toEqual(['False']);
    c.sim.setReadinessDelay(NS, 'web', 50);
    await waitFor(() =>
      c.sim
        .listPods(NS)[0]
        ?.status.conditions.some((x) => x.type === 'Ready' && x.status === 'True'),
    );
  });

  it('evicts only when the PodDisruptionBudget allows it', async () => {
    c.sim.addWorkload({
      namespace: NS,
      name: 'reviews',
      kind: 'ReplicaSet',
      labels: { app: 'reviews' },
      replicas: 2,
      readinessDelayMs: null,
    });
    c.sim.addPodDisruptionBudget({
      namespace: NS,
      name: 'reviews-pdb',
      labels: { app: 'reviews' },
      maxUnavailable: 1,
    });
    const [first, second] = c.sim.listPods(NS, { app: 'reviews' });
    const evict = (name: string) =>
      c.core.createNamespacedPodEviction({
        namespace: NS,
        name,
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: NS } },
      });

    await evict(first!.metadata.name);
    expect(c.sim.deletionsByUid().get(first!.metadata.uid)).toBe(1);
    // The replacement never turns Ready, so evicting the second pod would leave none healthy.
    const blocked = await apiError(evict(second!.metadata.name), 429);
    expect(blocked.reason).toBe('TooManyRequests');
    expect(blocked.details?.causes?.[0]?.message).toBe(
      'The disruption budget reviews-pdb needs 1 healthy pods and has 1 currently',
    );
    expect(c.sim.deletionsByUid().get(second!.metadata.uid)).toBeUndefined();
    expect(c.sim.deleteRequestsByUid().get(second!.metadata.uid)).toBe(1);
    await apiError(evict('no-such-pod'), 404);
  });
});
