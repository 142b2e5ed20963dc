// ClusterView.pods answers from a label index kept by the pod watch's own changes: the same pods
// as testing every pod of the namespace, through adds, relabels and deletions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { namespacedPath, sendRaw } from '../../src/kube/raw-request.js';
import { ClusterView } from '../../src/kube/watch-view.js';
import { KubeWatches } from '../../src/kube/watches.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { eventually } from '../support/harness.js';

const NS = 'labels';

describe('ClusterView.pods by label', () => {
  let sim: Simulator;
  let kc: KubeConfig;
  let watches: KubeWatches;
  let view: ClusterView;
  const names = (labels: Record<string, string>) =>
    (view.pods(NS, labels) ?? []).map((pod) => pod.name).sort();
  const expected = (labels: Record<string, string>) =>
    sim
      .listPods(NS, labels)
      .map((pod) => pod.metadata.name)
      .sort();
  const until = (labels: Record<string, string>, want: string[]) =>
    eventually(JSON.stringify(labels), () =>
      JSON.stringify(names(labels)) === JSON.stringify(want) ? true : undefined,
    );

  beforeAll(async () => {
    sim = await startSimulator({ seed: 5 });
    kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    watches = new KubeWatches(kc, createLogger('silent'));
    view = new ClusterView(watches);
    sim.addPod({ namespace: NS, name: 'a1', labels: { app: 'a', tier: 'web' } });
    sim.addPod({ namespace: NS, name: 'a2', labels: { app: 'a', tier: 'db' } });
    sim.addPod({ namespace: NS, name: 'b1', labels: { app: 'b', tier: 'web' } });
    expect(await watches.ready('pods', NS)).toBe(true);
  });

  afterAll(async () => {
    await watches.close();
    await sim.close();
  });

  it('finds the pods carrying every label, and all pods for none', () => {
    expect(names({ app: 'a' })).toEqual(['a1', 'a2']);
    expect(names({ tier: 'web' })).toEqual(['a1', 'b1']);
    expect(names({ app: 'a', tier: 'web' })).toEqual(['a1']);
    expect(names({ app: 'c' })).toEqual([]);
    expect(names({ app: 'b', tier: 'db' })).toEqual([]);
    expect(names({})).toEqual(['a1', 'a2', 'b1']);
  });

  it('follows pods added, deleted and re-added with other labels after the first read', async () => {
    sim.addPod({ namespace: NS, name: 'a3', labels: { app: 'a', tier: 'web' } });
    await until({ app: 'a', tier: 'web' }, ['a1', 'a3']);
    // Pods are not patched here: a name that comes back with other labels is a relabel to the index.
    await sendRaw(kc, { method: 'DELETE', path: namespacedPath(NS, 'pods', 'a1') });
    await until({ app: 'a' }, ['a2', 'a3']);
    sim.addPod({ namespace: NS, name: 'a1', labels: { app: 'b' } });
    await until({ app: 'b' }, ['a1', 'b1']);
    expect(names({ app: 'a' })).toEqual(['a2', 'a3']);
    expect(names({ tier: 'web' })).toEqual(['a3', 'b1']);
    await sendRaw(kc, { method: 'DELETE', path: namespacedPath(NS, 'pods', 'b1') });
    await until({ app: 'b' }, ['a1']);
    const selectors: Record<string, string>[] = [{}, { app: 'a' }, { app: 'b' }, { tier: 'web' }];
    for (const labels of selectors) {
      expect(names(labels)).toEqual(expected(labels));
    }
  });
});
