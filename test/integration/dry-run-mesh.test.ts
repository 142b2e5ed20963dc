// A dry run of a 1000-selector directive over 200 namespaces: planned a few selectors at a time
// from one LIST per namespace, answered with a summary a person reads at a glance, and nothing
// written to the cluster or Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, type Harness } from '../support/harness.js';
import { keysUnder } from '../support/routers.js';

describe('?dryRun=true of a mesh directive', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('dry-run-mesh', { worker: false });
  });
  afterAll(async () => h.close());

  it('plans 1000 selectors and summarizes them in figures and one line', async () => {
    const selectors = [
      { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 1 },
    ];
    h.sim.addWorkload({
      namespace: 'istio-system',
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 1,
    });
    for (let w = 0; w < 999; w += 1) {
      const namespace = `mesh-${w % 199}`;
      // Every tenth workload has no pod: a warning each.
      if (w % 10 !== 0) {
        h.sim.addWorkload({
          namespace,
          name: `w${w}`,
          kind: 'ReplicaSet',
          labels: { app: `w${w}` },
          replicas: 2,
        });
      }
      selectors.push({ namespace, labels: { app: `w${w}` }, waitForReplicas: 0 });
    }
    const manifest = directive('istio-system', 'mesh', selectors);
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 50;
    h.sim.applyDirective(manifest);
    const keys = await keysUnder(h.prefix);
    h.sim.resetRequests();
    const response = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${h.env.WEBHOOK_TOKENS}`,
      },
      body: JSON.stringify({ directive: { namespace: 'istio-system', name: 'mesh' } }),
    });
    expect(response.status).toBe(200);
    const plan = (await response.json()) as any;
    expect(plan.selectors).toHaveLength(1000);
    expect(plan.summary).toMatchObject({
      selectors: 1000,
      pods: 1 + 899 * 2,
      // 25 % of 2 pods is one pod a batch.
      batches: 1 + 899 * 2,
      warned: 100,
      maxConcurrentSelectors: 50,
      barriers: 1,
    });
    expect(plan.summary.message).toMatch(/^1000 selectors, 1799 pods to bounce in \d+ batches/);
    expect(plan.summary.message.length).toBeLessThanOrEqual(300);
    // Reads only, one LIST per namespace (not per selector) and the directive; nothing in Redis.
    const requests = h.sim.requests();
    expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
    const lists = requests.filter((r) => r.resource === 'pods' && !r.watch && r.name === undefined);
    expect(lists.length).toBe(200);
    expect(new Set(lists.map((r) => r.namespace)).size).toBe(200);
    expect(requests.length).toBeLessThanOrEqual(200 + 3);
    expect(await keysUnder(h.prefix)).toEqual(keys);
  });
});
