// The worker's wake-up registry on real parts: delayed BullMQ jobs in the real Redis, pod and
// ConfigMap watches over the simulator. A job is promoted exactly when its condition can hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { Queue, type Job } from 'bullmq';
import { ClusterView } from '../../src/kube/watch-view.js';
import { KubeWatches } from '../../src/kube/watches.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { digestOf, Wakeups } from '../../src/workflow/wakeups.js';
import { eventually } from '../support/harness.js';
import { deletePrefix, REDIS_URL } from '../support/redis.js';

const NS = 'wake';

describe('Wakeups', () => {
  let sim: Simulator;
  let watches: KubeWatches;
  let wakeups: Wakeups;
  let queue: Queue;
  const prefix = `pbtest-wakeups-${randomBytes(3).toString('hex')}`;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 17 });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    watches = new KubeWatches(kc, createLogger('silent'));
    wakeups = new Wakeups(new ClusterView(watches), createLogger('silent'));
    queue = new Queue('wakeups', { connection: { url: REDIS_URL }, prefix });
    expect(await watches.ready('pods', NS)).toBe(true);
    expect(await watches.ready('configmaps', NS)).toBe(true);
  });
  afterAll(async () => {
    wakeups.close();
    await queue.close();
    await watches.close();
    await sim.close();
    await deletePrefix(prefix);
  });

  const parked = (name: string): Promise<Job> => queue.add(name, {}, { delay: 600_000 });
  const promoted = (job: Job) =>
    eventually(`${job.name} promoted`, async () =>
      (await job.getState()) === 'waiting' ? true : undefined,
    );
  const readyPod = (name: string, labels: Record<string, string>) =>
    sim.addPod({ namespace: NS, name, labels, ready: true });

  it('wakes a replicas wait once enough matching, Ready, not excluded pods exist', async () => {
    const old = readyPod('old', { app: 'r' });
    const job = await parked('replicas');
    const condition = {
      namespace: NS,
      labels: { app: 'r' },
      wanted: 2,
      exclude: [old.metadata.uid],
    };
    wakeups.park(job, { kind: 'replicas', ...condition });
    expect(wakeups.size).toBe(1);

    readyPod('other-app', { app: 'other' });
    sim.addPod({ namespace: NS, name: 'not-ready', labels: { app: 'r' }, ready: false });
    readyPod('new-1', { app: 'r' });
    // One qualifying pod of two: still parked.
    await eventually('the watch saw new-1', () =>
      watches.synced('pods', NS)?.get(NS, 'new-1') ? true : undefined,
    );
    expect(await job.getState()).toBe('delayed');
    expect(wakeups.size).toBe(1);

    readyPod('new-2', { app: 'r' });
    await promoted(job);
    expect(wakeups.size).toBe(0);
  });

  it('wakes at once a job whose condition the cache already meets', async () => {
    readyPod('there-1', { app: 'there' });
    await eventually('the watch saw there-1', () =>
      watches.synced('pods', NS)?.get(NS, 'there-1') ? true : undefined,
    );
    const before = wakeups.woken;
    const job = await parked('met');
    wakeups.park(job, {
      kind: 'replicas',
      namespace: NS,
      labels: { app: 'there' },
      wanted: 1,
      exclude: [],
    });
    expect(wakeups.woken).toBe(before + 1);
    await promoted(job);
  });

  it('does not count for a replicas wait a pod created before its since', async () => {
    readyPod('before-1', { app: 'since' });
    await eventually('the watch saw before-1', () =>
      watches.synced('pods', NS)?.get(NS, 'before-1') ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const since = Math.floor(Date.now() / 1000) * 1000;
    const before = wakeups.woken;
    const job = await parked('since');
    const condition = { namespace: NS, labels: { app: 'since' }, wanted: 1, exclude: [], since };
    wakeups.park(job, { kind: 'replicas', ...condition });
    expect(wakeups.woken).toBe(before);
    readyPod('after-1', { app: 'since' });
    await promoted(job);
  });

  it('wakes a ConfigMap wait only for the expected digest', async () => {
    const job = await parked('configmap');
    const ref = { namespace: NS, name: 'root' };
    wakeups.park(job, { kind: 'configMapKey', ref, key: 'ca.crt', digest: digestOf('new-root') });
    sim.putConfigMap(NS, 'root', { 'ca.crt': 'old-root' });
    await eventually('the watch saw the old root', () =>
      watches.synced('configmaps', NS)?.get(NS, 'root') ? true : undefined,
    );
    expect(await job.getState()).toBe('delayed');
    sim.putConfigMap(NS, 'root', { 'ca.crt': 'new-root' });
    await promoted(job);
  });

  it('does not wake a job it was told to forget', async () => {
    const job = await parked('forgotten');
    const before = wakeups.woken;
    wakeups.park(job, { kind: 'podReady', namespace: NS });
    wakeups.forget(job.id);
    readyPod('after-forget', { app: 'f' });
    await eventually('the watch saw after-forget', () =>
      watches.synced('pods', NS)?.get(NS, 'after-forget') ? true : undefined,
    );
    expect(wakeups.woken).toBe(before);
    expect(await job.getState()).toBe('delayed');
    expect(wakeups.size).toBe(0);
  });

  it('wakes a podReady wait on any pod of the namespace turning Ready', async () => {
    const job = await parked('pod-ready');
    wakeups.park(job, { kind: 'podReady', namespace: NS });
    readyPod('any', { whatever: 'x' });
    await promoted(job);
  });
});
