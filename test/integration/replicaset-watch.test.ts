// A ReplicaSet's scale as batches read it (ClusterView.replicaSetScale): nothing until the
// namespace's watch has listed (the caller then GETs), then every scale change the watch delivers,
// a ReplicaSet gone as such, and only the scale kept; past `clusterWidePodsAfter` namespaces, one
// cluster-wide ReplicaSet watch, as for pods.
import { afterEach, describe, expect, it } from 'vitest';
import { AppsV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { ClusterView } from '../../src/kube/watch-view.js';
import { KubeWatches } from '../../src/kube/watches.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { eventually } from '../support/harness.js';

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('the ReplicaSet watch', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
  });

  async function start() {
    const sim = await startSimulator({ seed: 5 });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    const watches = new KubeWatches(kc, createLogger('silent'), { clusterWidePodsAfter: 1 });
    cleanup = async () => {
      await watches.close();
      await sim.close();
    };
    for (const namespace of ['a', 'b', 'c']) {
      sim.addWorkload({
        namespace,
        name: 'web',
        kind: 'ReplicaSet',
        labels: { app: 'web' },
        replicas: 3,
      });
    }
    return { sim, watches, view: new ClusterView(watches), apps: kc.makeApiClient(AppsV1Api) };
  }

  /** The ReplicaSet's name as its pods' controller reference gives it (the workflow's owner). */
  function ownerOf(sim: Simulator, namespace: string): string {
    return sim.listPods(namespace)[0]?.metadata.ownerReferences?.[0]?.name ?? '';
  }

  it('answers once listed, follows a scale, and tells a ReplicaSet gone', async () => {
    const { sim, watches, view, apps } = await start();
    // A Deployment's scale reaches its ReplicaSet, as an autoscaler's would.
    sim.addWorkload({
      namespace: 'd',
      name: 'api',
      kind: 'Deployment',
      labels: { app: 'api' },
      replicas: 2,
    });
    const name = ownerOf(sim, 'd');
    // Not listed yet: no answer (the caller GETs), and the read starts the watch.
    expect(view.replicaSetScale('d', name)).toBeUndefined();
    expect(await watches.ready('replicasets', 'd')).toBe(true);
    expect(view.replicaSetScale('d', name)).toEqual({ replicas: 2 });
    // Only the scale is kept: the pod template never is.
    expect(watches.informer('replicasets', 'd').get('d', name)).toEqual({
      metadata: { name, namespace: 'd', resourceVersion: expect.any(String) },
      spec: { replicas: 2 },
    });

    await apps.patchNamespacedDeployment(
      { namespace: 'd', name: 'api', body: { spec: { replicas: 5 } } },
      MERGE,
    );
    await eventually('the scale-up in the cache', () =>
      view.replicaSetScale('d', name)?.replicas === 5 ? true : undefined,
    );
    // A ReplicaSet the watch does not hold is gone (no GET would find it either).
    expect(view.replicaSetScale('d', 'api-gone')).toEqual({ replicas: undefined });
  });

  it('watches further namespaces cluster-wide', async () => {
    const { sim, watches, view } = await start();
    for (const namespace of ['a', 'b', 'c']) {
      expect(await watches.ready('replicasets', namespace)).toBe(true);
      expect(view.replicaSetScale(namespace, ownerOf(sim, namespace))).toEqual({ replicas: 3 });
    }
    const streams = sim.requests().filter((r) => r.resource === 'replicasets' && r.watch);
    // Its own watch for the first namespace, one cluster-wide for the two others.
    expect(streams.map((r) => r.namespace ?? '*').sort()).toEqual(['*', 'a']);
    // The pods' count is their own: the first pod watch is still per namespace.
    expect(watches.podWatchMode()).toEqual({ namespaces: 0, clusterWide: false });
  });
});
