// A Gloo-shaped directive of MAX_SELECTORS (1000) selectors, accepted and FINISHED on the
// simulator: istiod first (waitForReplicas 1), then one selector per workload, 50 at a time.
// Small pods, fast readiness; one LIST per selector; Redis bytes per selector bounded.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachDeletedOnce } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { redisBytes } from '../support/redis-bytes.js';
import { CLUSTER_WIDE_PODS_AFTER } from '../../src/kube/watches.js';
import { QUEUE_NAME } from '../../src/queue/names.js';
import { REDIS_URL } from '../support/redis.js';

const WORKLOADS = 999;
const NAMESPACES = 20;

describe('a directive of 1000 selectors', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('mesh-scale', {
      env: {
        BOUNCE_MODE: 'delete',
        WORKER_CONCURRENCY: '50',
        KUBE_QPS: '5000',
        KUBE_BURST: '5000',
      },
    });
  });
  afterAll(async () => h.close());

  it('is accepted and FINISHED, with one LIST per selector and bounded Redis bytes', async () => {
    h.sim.addWorkload({
      namespace: 'istio-system',
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 1,
      readinessDelayMs: 20,
    });
    const selectors = [
      { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 1 },
    ];
    for (let index = 0; index < WORKLOADS; index += 1) {
      const namespace = `mesh-${index % NAMESPACES}`;
      const app = `w${index}`;
      h.sim.addWorkload({
        namespace,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 1,
        readinessDelayMs: 20,
      });
      selectors.push({ namespace, labels: { app }, waitForReplicas: 0 });
    }
    const originals = h.sim
      .listPods('istio-system')
      .concat(...Array.from({ length: NAMESPACES }, (_, i) => h.sim.listPods(`mesh-${i}`)))
      .map((pod) => pod.metadata.uid);
    const manifest = directive('istio-system', 'mesh', selectors);
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 50;
    h.sim.applyDirective(manifest);
    h.sim.resetRequests();
    const answer = await h.post({ directive: { namespace: 'istio-system', name: 'mesh' } });
    expect(answer.status).toBe(202);
    expect(answer.body.jobIds).toHaveLength(1000);
    const queued = await redisBytes(h.prefix);
    const done = await waitForState(h, 'istio-system', 'mesh', 'FINISHED', 120_000);
    expect(done.status.podsBounced).toHaveLength(1000);
    expectEachDeletedOnce(h, originals);
    const lists = h.sim
      .requests()
      .filter(
        (r) => r.resource === 'pods' && r.method === 'GET' && r.name === undefined && !r.watch,
      );
    // One LIST per selector, plus one per watched namespace at most (the watch view's own).
    expect(lists.length).toBeLessThanOrEqual(1000 + NAMESPACES + 1);
    // 21 namespaces: a pod watch for each of the first 16, then one cluster-wide for the rest.
    const podWatches = h.sim.requests().filter((r) => r.resource === 'pods' && r.watch);
    const clusterWide = podWatches.filter((r) => r.namespace === undefined);
    expect(clusterWide.length).toBeGreaterThan(0);
    expect(new Set(podWatches.map((r) => r.namespace ?? '*')).size).toBeLessThanOrEqual(
      CLUSTER_WIDE_PODS_AFTER + 1,
    );
    // BullMQ trims the queue's event stream to its cap (10,000 events) whatever the directives:
    // bounded apart; the rest is what each selector costs.
    const stream = `${h.prefix}:${QUEUE_NAME}:events`;
    const finished = await redisBytes(h.prefix, (key) => key === stream);
    const redis = new Redis(REDIS_URL);
    const [streamLength, streamBytes] = await Promise.all([
      redis.xlen(stream),
      redis.call('MEMORY', 'USAGE', stream, 'SAMPLES', '0') as Promise<number>,
    ]).finally(() => redis.disconnect());
    console.log(
      JSON.stringify({
        queuedBytesPerSelector: Math.round(queued.bytes / 1000),
        finishedBytesPerSelector: Math.round(finished.bytes / 1000),
        eventStreamBytes: streamBytes,
        eventStreamLength: streamLength,
        keys: finished.keys,
        podLists: lists.length,
        podWatchStreams: podWatches.length,
      }),
    );
    expect(queued.bytes / 1000).toBeLessThan(4096);
    expect(finished.bytes / 1000).toBeLessThan(3584);
    expect(streamLength).toBeLessThanOrEqual(10_100);
  }, 180_000);
});
