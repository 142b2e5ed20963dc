// A watch stream that stays open but goes silent (a half-open connection) is noticed by the
// watchdog, reported "not synced", listed again and counted; the cache catches up with changes
// made while it was silent. A healthy stream, kept alive by bookmarks, is never relisted.
import { afterEach, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeWatches } from '../../src/kube/watches.js';
import { createLogger } from '../../src/logger.js';
import { registry } from '../../src/metrics/registry.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { eventually } from '../support/harness.js';

const NS = 'quiet';

async function restarts(reason: string): Promise<number> {
  const metric = await registry.getSingleMetric('pod_bouncer_watch_restarts_total')!.get();
  const value = metric.values.find((v) => v.labels.kind === 'pods' && v.labels.reason === reason);
  return value?.value ?? 0;
}

function podLists(sim: Simulator): number {
  return sim.requests().filter((r) => r.resource === 'pods' && r.method === 'GET' && !r.watch)
    .length;
}

function cachedNames(watches: KubeWatches): string[] {
  return watches
    .informer('pods', NS)
    .list(NS)
    .map((pod) => pod.metadata?.name ?? '')
    .sort();
}

describe('watch watchdog', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function start(silenceLimitMs: number) {
    const sim = await startSimulator({ seed: 5, bookmarkIntervalMs: 100 });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    const watches = new KubeWatches(kc, createLogger('silent'), { silenceLimitMs });
    cleanup = async () => {
      await watches.close();
      await sim.close();
    };
    return { sim, watches };
  }

  it('lists a silent watch again and the cache catches up', async () => {
    const { sim, watches } = await start(600);
    sim.addPod({ namespace: NS, name: 'before', labels: {} });
    expect(await watches.ready('pods', NS)).toBe(true);
    const silentBefore = await restarts('silent');
    const listsBefore = podLists(sim);

    sim.stallWatches();
    sim.addPod({ namespace: NS, name: 'during', labels: {} });
    sim.listPods(NS); // the change is in the cluster, not (yet) in the cache
    expect(cachedNames(watches)).toEqual(['before']);

    await eventually('the silent watch noticed', async () =>
      (await restarts('silent')) > silentBefore ? true : undefined,
    );
    await eventually('the cache caught up', () =>
      cachedNames(watches).join() === 'before,during' ? true : undefined,
    );
    expect(podLists(sim)).toBeGreaterThan(listsBefore);
    await eventually('synced again', () => watches.synced('pods', NS));
  });

  it('keeps a quiet but healthy watch (bookmarks) without listing again', async () => {
    const { sim, watches } = await start(600);
    expect(await watches.ready('pods', NS)).toBe(true);
    const silentBefore = await restarts('silent');
    const watchRequests = () => sim.requests().filter((r) => r.resource === 'pods' && r.watch);
    // Several silence limits of a namespace where nothing changes: bookmarks keep it alive.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await restarts('silent')).toBe(silentBefore);
    expect(podLists(sim)).toBe(1);
    expect(watchRequests()).toHaveLength(1);
    expect(new URLSearchParams(watchRequests()[0]!.query).get('allowWatchBookmarks')).toBe('true');
    expect(watches.synced('pods', NS)).toBeDefined();
  });
});
