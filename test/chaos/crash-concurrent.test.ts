import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/sim/rng.js';
import { expectEachDeletedOnce } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { startCli, stopCli, type CliProcess } from '../support/processes.js';
import { probeOrder, type ProbedSelector } from '../support/selector-order.js';

/**
 * Crash at any point of a run with maxConcurrentSelectors > 1: a Gloo-shaped directive (istiod,
 * a barrier, then workloads, a gateway barrier, more workloads) K at a time, its worker process
 * SIGKILLed at seeded random moments and restarted. At every pod event: never more than K
 * selectors in progress, no selector before the barriers it waits for are done; at the end every
 * pod bounced exactly once and the run FINISHED. Same seeds as crash.test.ts: CHAOS_RUNS,
 * CHAOS_SEED.
 */
const RUNS = Number(process.env.CHAOS_RUNS ?? 5);
const FIRST_SEED = Number(process.env.CHAOS_SEED ?? 1);
const REPLICAS = 3;
const SHAPE = [
  { app: 'istiod', waitForReplicas: REPLICAS },
  ...['a0', 'a1', 'a2', 'a3', 'a4', 'a5'].map((app) => ({ app, waitForReplicas: 0 })),
  { app: 'gateway', waitForReplicas: REPLICAS },
  ...['b0', 'b1', 'b2', 'b3'].map((app) => ({ app, waitForReplicas: 0 })),
];

describe('chaos: worker SIGKILLed mid-run, several selectors in progress at once', () => {
  let h: Harness;
  const live: CliProcess[] = [];
  const earlier: string[] = [];
  beforeAll(async () => {
    h = await startHarness('chaos-k', { worker: false, env: { JOB_LOCK_MS: '1000' } });
  });
  afterAll(async () => {
    for (const cli of live) await stopCli(cli);
    await h.close();
  });

  const spawnWorker = (): CliProcess => {
    const cli = startCli('work', h.env);
    live.push(cli);
    return cli;
  };
  const stopWorker = async (cli: CliProcess): Promise<void> => {
    await stopCli(cli, 'SIGKILL');
    live.splice(live.indexOf(cli), 1);
  };

  async function runOnce(seed: number): Promise<{ kills: string[]; peak: number }> {
    const random = mulberry32(seed);
    const namespace = `chaos-k-${seed}`;
    const limit = 2 + Math.floor(random() * 3);
    for (const { app } of SHAPE) {
      h.sim.addWorkload({
        namespace,
        name: app,
        kind: random() < 0.5 ? 'ReplicaSet' : 'StatefulSet',
        labels: { app },
        replicas: REPLICAS,
        readinessDelayMs: 50 + Math.floor(random() * 250),
        terminationGraceMs: random() < 0.5 ? 0 : 100 + Math.floor(random() * 300),
      });
    }
    const selectors: ProbedSelector[] = SHAPE.map(({ app, waitForReplicas }) => ({
      labels: { app },
      waitForReplicas,
      originals: new Set(h.sim.listPods(namespace, { app }).map((pod) => pod.metadata.uid)),
    }));
    const name = `crash-${seed}`;
    const manifest = directive(
      namespace,
      name,
      SHAPE.map(({ app, waitForReplicas }) => ({
        namespace,
        labels: { app },
        waitForReplicas,
        maxUnavailable: 1 + Math.floor(random() * 2),
        bounceMode: random() < 0.5 ? 'delete' : 'evict',
      })),
    );
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = limit;
    h.sim.applyDirective(manifest);
    const probe = await probeOrder(h, namespace, selectors);
    let deletions = 0;
    const stopCounting = h.sim.onPodDeleted(() => (deletions += 1));
    const kills: string[] = [];
    let worker = spawnWorker();
    expect((await h.post({ directive: { namespace, name } })).status).toBe(202);
    const total = SHAPE.length * REPLICAS;
    const count = random() < 0.4 ? 2 : 1;
    for (let i = 0; i < count; i += 1) {
      const at = 1 + Math.floor(random() * (total - 1));
      while (deletions < at && h.sim.getDirective(namespace, name)?.status?.state !== 'FINISHED') {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (deletions < at) break;
      await stopWorker(worker);
      kills.push(`deletion ${deletions}`);
      worker = spawnWorker();
    }
    try {
      await waitForState(h, namespace, name, 'FINISHED', 45_000);
    } finally {
      probe.stop();
      stopCounting();
      await stopWorker(worker);
    }
    const tag = `CHAOS_SEED=${seed} K=${limit} kills=${kills.join(',')}`;
    expect(probe.violations, tag).toEqual([]);
    expect(probe.peak, tag).toBeLessThanOrEqual(limit);
    const originals = selectors.flatMap((s) => [...s.originals]);
    expectEachDeletedOnce(h, originals, earlier);
    earlier.push(...originals);
    return { kills, peak: probe.peak };
  }

  it(`holds the order and K over ${RUNS} seeded runs`, { timeout: RUNS * 60_000 }, async () => {
    const reports = [];
    for (let seed = FIRST_SEED; seed < FIRST_SEED + RUNS; seed += 1)
      reports.push(await runOnce(seed));
    expect(reports.reduce((sum, r) => sum + r.kills.length, 0)).toBeGreaterThan(0);
    console.log(
      `chaos K>1: ${reports.length} runs, ${reports.reduce((s, r) => s + r.kills.length, 0)} kills, peak in progress ${Math.max(...reports.map((r) => r.peak))}`,
    );
  });
});
