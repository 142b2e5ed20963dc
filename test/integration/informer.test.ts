// The shared watches on the real client-node: one list, then a watch that resumes after a drop
// without listing again, and re-lists after 410 Gone; the cache stays equal to the cluster.
import { afterEach, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeWatches } from '../../src/kube/watches.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { eventually } from '../support/harness.js';

const NS = 'bookinfo';

function podLists(sim: Simulator) {
  return sim.requests().filter((r) => r.resource === 'pods' && r.method === 'GET' && !r.watch);
}
function podWatches(sim: Simulator) {
  return sim.requests().filter((r) => r.resource === 'pods' && r.watch);
}

async function start(watchHistorySize?: number) {
  const sim = await startSimulator({ seed: 3, ...(watchHistorySize ? { watchHistorySize } : {}) });
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfigYaml());
  const watches = new KubeWatches(kc, createLogger('silent'));
  return { sim, watches };
}

function cachedNames(watches: KubeWatches): string[] {
  return watches
    .informer('pods', NS)
    .list(NS)
    .map((pod) => pod.metadata?.name ?? '')
    .sort();
}

function clusterNames(sim: Simulator): string[] {
  return sim
    .listPods(NS)
    .map((pod) => pod.metadata.name)
    .sort();
}

describe('shared watches', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
  });

  it('lists once, follows changes, and resumes a dropped watch without listing again', async () => {
    const { sim, watches } = await start();
    cleanup = async () => {
      await watches.close();
      await sim.close();
    };
    sim.addPod({ namespace: NS, name: 'a', labels: { app: 'x' } });
    expect(await watches.ready('pods', NS)).toBe(true);
    // Asking again shares the same informer.
    expect(watches.informer('pods', NS)).toBe(watches.informer('pods', NS));
    expect(cachedNames(watches)).toEqual(['a']);

    sim.addPod({ namespace: NS, name: 'b', labels: { app: 'x' } });
    await eventually('b in the cache', () =>
      cachedNames(watches).includes('b') ? true : undefined,
    );

    sim.dropWatches();
    await eventually('a second watch', () => (podWatches(sim).length >= 2 ? true : undefined));
    sim.addPod({ namespace: NS, name: 'c', labels: { app: 'x' } });
    await eventually('c in the cache', () =>
      cachedNames(watches).includes('c') ? true : undefined,
    );

    expect(podLists(sim)).toHaveLength(1);
    const resumed = podWatches(sim)[1]!;
    expect(new URLSearchParams(resumed.query).get('resourceVersion')).toMatch(/^[1-9]\d*$/);
    expect(cachedNames(watches)).toEqual(clusterNames(sim));
  });

  it('re-lists after 410 Gone and ends equal to the cluster', async () => {
    const { sim, watches } = await start(5);
    cleanup = async () => {
      await watches.close();
      await sim.close();
    };
    sim.addPod({ namespace: NS, name: 'keep', labels: { app: 'x' } });
    sim.addPod({ namespace: NS, name: 'gone', labels: { app: 'x' } });
    expect(await watches.ready('pods', NS)).toBe(true);

    // While the watch reconnects, more changes than the history keeps: its resourceVersion expires.
    sim.dropWatches();
    for (let i = 0; i < 10; i++) sim.addPod({ namespace: NS, name: `new-${i}`, labels: {} });
    sim.addWorkload({ namespace: 'other', name: 'w', kind: 'ReplicaSet', labels: {}, replicas: 3 });

    await eventually('a second list', () => (podLists(sim).length >= 2 ? true : undefined));
    await eventually('the cache equal to the cluster', () =>
      cachedNames(watches).join() === clusterNames(sim).join() ? true : undefined,
    );
    expect(watches.synced('pods', NS)).toBeDefined();
  });
});
