// Watches through client-node's Watch: live events, resuming, expiry, selectors and stream ends.
import { afterEach, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { recordWatch, startWithClients, waitFor } from './sim-clients.js';
import type { SimClients } from './sim-clients.js';

const NS = 'bookinfo';
const PODS = `/api/v1/namespaces/${NS}/pods`;

describe('simulator: watches', () => {
  let c: SimClients;
  afterEach(async () => {
    await c.sim.close();
  });

  it('streams ADDED, MODIFIED and DELETED as pods are replaced', async () => {
    c = await startWithClients();
    c.sim.addWorkload({
      namespace: NS,
      name: 'reviews',
      kind: 'ReplicaSet',
      labels: { app: 'reviews' },
      replicas: 1,
      terminationGraceMs: 100,
      readinessDelayMs: 50,
    });
    const list = await c.core.listNamespacedPod({ namespace: NS });
    const watch = await recordWatch(c.kc, PODS, {
      resourceVersion: list.metadata?.resourceVersion,
      labelSelector: 'app=reviews',
    });
    const old = list.items[0]!;
    await c.core.deleteNamespacedPod({ namespace: NS, name: old.metadata!.name! });

    await waitFor(() => watch.events.length >= 4);
    const seen = watch.events.map(
      (e) => `${e.type} ${e.object.metadata.name === old.metadata?.name ? 'old' : 'new'}`,
    );
    // Terminating (MODIFIED) and the replacement (ADDED) come first; then Ready and removal in time order.
    expect(seen.slice(0, 2)).toEqual(['MODIFIED old', 'ADDED new']);
    expect(seen.slice(2).sort()).toEqual(['DELETED old', 'MODIFIED new']);
    expect(watch.events[0]!.object.metadata.deletionTimestamp).toBeDefined();
    const versions = watch.events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    watch.stop();
  });

  it('resumes from a resourceVersion and replays what happened since', async () => {
    c = await startWithClients();
    c.sim.putConfigMap(NS, 'one', { v: '1' });
    const rv = (await c.core.listNamespacedConfigMap({ namespace: NS })).metadata!.resourceVersion!;
    c.sim.putConfigMap(NS, 'one', { v: '2' });
    c.sim.putConfigMap(NS, 'two', { v: '1' });
    await c.core.deleteNamespacedConfigMap({ namespace: NS, name: 'one' });

    const watch = await recordWatch(c.kc, `/api/v1/namespaces/${NS}/configmaps`, {
      resourceVersion: rv,
    });
    await waitFor(() => watch.events.length >= 3);
    expect(watch.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      'MODIFIED one',
      'ADDED two',
      'DELETED one',
    ]);
    expect(watch.events[0]!.object.data).toEqual({ v: '2' });
    watch.stop();

    // Without a resourceVersion the watch starts with the current state as ADDED events.
    const fresh = await recordWatch(c.kc, `/api/v1/namespaces/${NS}/configmaps`);
    await waitFor(() => fresh.events.length >= 1);
    expect(fresh.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED two']);
    fresh.stop();
  });

  it('answers a too-old resourceVersion with a 410 Expired ERROR event and ends the stream', async () => {
    c = await startWithClients({ watchHistorySize: 3 });
    c.sim.putConfigMap(NS, 'cm', { v: '0' });
    const rv = (await c.core.readNamespacedConfigMap({ namespace: NS, name: 'cm' })).metadata!
      .resourceVersion!;
    for (let i = 1; i <= 5; i++) c.sim.putConfigMap(NS, 'cm', { v: String(i) });

    const watch = await recordWatch(c.kc, `/api/v1/namespaces/${NS}/configmaps`, {
      resourceVersion: rv,
    });
    expect(await watch.done).toBeNull();
    expect(watch.events).toHaveLength(1);
    expect(watch.events[0]!.type).toBe('ERROR');
    expect(watch.events[0]!.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  });

  it('reports objects leaving a label selection as DELETED', async () => {
    c = await startWithClients();
    c.sim.putConfigMap(NS, 'cm', { v: '0' });
    await c.core.patchNamespacedConfigMap(
      { namespace: NS, name: 'cm', body: { metadata: { labels: { watched: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const watch = await recordWatch(c.kc, `/api/v1/namespaces/${NS}/configmaps`, {
      labelSelector: 'watched=yes',
    });
    await waitFor(() => watch.events.length === 1);
    await c.core.patchNamespacedConfigMap(
      { namespace: NS, name: 'cm', body: { metadata: { labels: { watched: null } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await waitFor(() => watch.events.length === 2);
    expect(watch.events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    watch.stop();
  });

  it('ends every stream on dropWatches, cluster-wide directive watches included', async () => {
    c = await startWithClients();
    const pods = await recordWatch(c.kc, PODS);
    const directives = await recordWatch(
      c.kc,
      '/apis/internal.gloo.solo.io/v2/podbouncedirectives',
    );
    c.sim.applyDirective({
      apiVersion: 'internal.gloo.solo.io/v2',
      kind: 'PodBounceDirective',
      metadata: { name: 'd', namespace: 'team-a' },
      spec: { podsToBounce: [{ namespace: 'team-a', labels: {} }] },
    });
    await waitFor(() => directives.events.length === 1);
    expect(directives.events[0]).toMatchObject({
      type: 'ADDED',
      object: { kind: 'PodBounceDirective', metadata: { name: 'd' } },
    });
    c.sim.dropWatches();
    expect(await pods.done).toBeNull();
    expect(await directives.done).toBeNull();
    const watchLog = c.sim.requests().filter((r) => r.watch);
    expect(watchLog.map((r) => [r.resource, r.namespace, r.status])).toEqual([
      ['pods', NS, 200],
      ['podbouncedirectives', undefined, 200],
    ]);
  });

  it('ends a stream after timeoutSeconds', async () => {
    c = await startWithClients();
    const started = Date.now();
    const watch = await recordWatch(c.kc, '/api/v1/pods', { timeoutSeconds: 1 });
    expect(await watch.done).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('sends BOOKMARK events to watches that ask for them', async () => {
    c = await startWithClients({ bookmarkIntervalMs: 50 });
    const watch = await recordWatch(c.kc, PODS, { allowWatchBookmarks: true });
    await waitFor(() => watch.events.some((e) => e.type === 'BOOKMARK'));
    expect(watch.events.find((e) => e.type === 'BOOKMARK')!.object).toMatchObject({
      kind: 'Pod',
      metadata: { resourceVersion: expect.any(String) },
    });
    watch.stop();
  });
});
