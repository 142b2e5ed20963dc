import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedKey } from '../../src/queue/names.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { command, startCluster, type ClusterTopology } from '../support/redis-topology.js';

const PREFIX = '{pbtest-cluster}';

describe('Redis Cluster: three masters, a hash-tagged queue prefix', () => {
  let topology: ClusterTopology;
  let h: Harness;
  beforeAll(async () => {
    topology = await startCluster();
    h = await startHarness('cluster', {
      env: { ...topology.env, REDIS_URL: '', QUEUE_PREFIX: PREFIX },
    });
  });
  afterAll(async () => {
    // The redis-server processes go even when closing pod-bouncer fails.
    try {
      await h?.close();
    } finally {
      await topology?.stop();
    }
  });

  it('runs a three-selector directive to FINISHED with no pod deleted twice', async () => {
    const selectors = ['istiod', 'gateway', 'reviews'].map((app, index) => {
      h.sim.addWorkload({
        namespace: 'mesh',
        name: app,
        kind: index === 1 ? 'StatefulSet' : 'ReplicaSet',
        labels: { app },
        replicas: 3,
        readinessDelayMs: 100,
      });
      return { namespace: 'mesh', labels: { app }, waitForReplicas: 3 };
    });
    const originals = podUids(h, 'mesh');
    h.sim.applyDirective(directive('mesh', 'clustered', selectors));
    const answer = await h.post({ directive: { namespace: 'mesh', name: 'clustered' } });
    expect(answer.status).toBe(202);

    await waitForState(h, 'mesh', 'clustered', 'FINISHED', 60_000);
    expectEachDeletedOnce(h, originals);

    const again = await h.post({ directive: { namespace: 'mesh', name: 'clustered' } });
    expect(again.body.duplicate).toBe(true);
  });

  it('keeps every key of the queue, and the accepted marker, in one slot on one node', async () => {
    const uid = h.sim.getDirective('mesh', 'clustered')!.metadata.uid;
    const byNode = new Map<number, string[]>();
    for (const port of topology.ports) {
      const keys = (await command(port, 'KEYS', `${PREFIX}*`)) as string[];
      if (keys.length > 0) byNode.set(port, keys);
    }
    expect(byNode.size).toBe(1);
    const keys = [...byNode.values()][0]!;
    expect(keys).toContain(acceptedKey(PREFIX, uid, 1, '0'));
    const port = [...byNode.keys()][0]!;
    const slots = new Set<unknown>();
    for (const key of keys) slots.add(await command(port, 'CLUSTER', 'KEYSLOT', key));
    expect(slots.size).toBe(1);
  });
});
