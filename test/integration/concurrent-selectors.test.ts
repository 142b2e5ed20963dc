// DESIGN §4 Order: with maxConcurrentSelectors K > 1, selectors start once the barriers before
// them (waitForReplicas > 0) are done, at most K in progress at once; K = 1 is the strict chain.
// Checked at every pod event, the way batches.test.ts samples unavailability.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { probeOrder, type ProbedSelector } from '../support/selector-order.js';

interface Shape {
  app: string;
  replicas: number;
  waitForReplicas: number;
}

/** istiod (a barrier), six apps, a gateway (a barrier), three apps: Gloo's shape, small. */
const SHAPE: Shape[] = [
  { app: 'istiod', replicas: 1, waitForReplicas: 1 },
  ...['a0', 'a1', 'a2', 'a3', 'a4', 'a5'].map((app) => ({ app, replicas: 2, waitForReplicas: 0 })),
  { app: 'gateway', replicas: 2, waitForReplicas: 2 },
  ...['b0', 'b1', 'b2'].map((app) => ({ app, replicas: 2, waitForReplicas: 0 })),
];

describe('maxConcurrentSelectors', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('concurrent-selectors', { env: { BOUNCE_MODE: 'delete' } });
  });
  afterAll(async () => h.close());
  const earlier: string[] = [];

  async function run(name: string, concurrency: number | undefined, readinessDelayMs = 150) {
    const namespace = `ns-${name}`;
    for (const { app, replicas } of SHAPE) {
      h.sim.addWorkload({
        namespace,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas,
        readinessDelayMs,
        terminationGraceMs: 30,
      });
    }
    const selectors: ProbedSelector[] = SHAPE.map(({ app, waitForReplicas }) => ({
      labels: { app },
      waitForReplicas,
      originals: new Set(podUids(h, namespace, { app })),
    }));
    const manifest = directive(
      namespace,
      name,
      SHAPE.map(({ app, waitForReplicas }) => ({
        namespace,
        labels: { app },
        waitForReplicas,
        maxUnavailable: 1,
      })),
    );
    if (concurrency !== undefined) {
      (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = concurrency;
    }
    h.sim.applyDirective(manifest);
    const probe = await probeOrder(h, namespace, selectors);
    const messages = new Set<string>();
    // The Ready message as a reader of the directive sees it while the run goes on.
    const reader = setInterval(() => {
      const ready = (h.sim.getDirective(namespace, name) as any)?.status?.conditions?.find(
        (c: { type: string }) => c.type === 'Ready',
      );
      if (ready !== undefined) messages.add(ready.message);
    }, 20);
    const stopMessages = (): void => clearInterval(reader);
    const answer = await h.post({ directive: { namespace, name } });
    expect(answer.status).toBe(202);
    expect(answer.body.jobIds).toHaveLength(SHAPE.length);
    const done = await waitForState(h, namespace, name, 'FINISHED');
    probe.stop();
    stopMessages();
    const originals = selectors.flatMap((s) => [...s.originals]);
    expectEachDeletedOnce(h, originals, earlier);
    earlier.push(...originals);
    expect(done.status.podsBounced).toHaveLength(SHAPE.length);
    done.status.podsBounced.forEach((entry: { bouncedPods: string[] }, index: number) =>
      expect(entry.bouncedPods, `selector ${index}`).toHaveLength(SHAPE[index]!.replicas),
    );
    expect(probe.samples).toBeGreaterThan(0);
    return { ...probe, peak: probe.peak, violations: probe.violations, messages: [...messages] };
  }

  it('K = 3: barriers hold both ways and never more than 3 selectors are in progress', async () => {
    // Slower replacements: the selectors' progress messages (at most one per 2 s) come mid-run,
    // after the writes of their choices (written together while the selectors go side by side).
    const probe = await run('wide', 3, 2100);
    expect(probe.violations).toEqual([]);
    expect(probe.peak).toBeLessThanOrEqual(3);
    // Not one after another: the apps between the barriers did overlap.
    expect(probe.peak).toBeGreaterThan(1);
    // Meanwhile Ready summarized the run in one line.
    const summaries = probe.messages.filter((m) => /selectors done, [2-3] in progress/.test(m));
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries[0]).toMatch(
      /^\d+\/11 selectors done, \d in progress, \d+ waiting; oldest in progress: selector \d+ \(ns-wide app=\w+\); selector \d+: /,
    );
    for (const message of probe.messages) expect(message.length).toBeLessThanOrEqual(300);
  });

  it('K = 1 (the default) is the strict chain: each selector after the one before is done', async () => {
    const probe = await run('strict', undefined);
    expect(probe.violations).toEqual([]);
    expect(probe.peak).toBe(1);
    expect(probe.messages.filter((m) => m.includes('selectors done'))).toEqual([]);
  });
});
