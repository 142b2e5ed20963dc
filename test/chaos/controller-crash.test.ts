import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUED_AT_ANNOTATION } from '../../src/directive/types.js';
import { mulberry32 } from '../../src/sim/rng.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';
import { startCli, stopCli, type CliProcess } from '../support/processes.js';

/**
 * Controller mode under crashes: two worker processes with WATCH_DIRECTIVES=true watch while a
 * directive is created, its spec changed and its issued-at annotation moved on, each at a seeded
 * random moment, and workers are SIGKILLed and restarted at seeded random moments meanwhile. No
 * event is posted. Every issuance runs at most once (one run per generation and issuedAt), no pod
 * is deleted twice, the last issuance FINISHES, and workers started afterwards start nothing.
 * `CHAOS_RUNS=3 npx vitest run --config vitest.chaos.config.ts test/chaos/controller-crash.test.ts`
 * (dist/ built); a failure names its seed (CHAOS_SEED).
 */
const RUNS = Number(process.env.CHAOS_RUNS ?? 3);
const FIRST_SEED = Number(process.env.CHAOS_SEED ?? 1);
const REPLICAS = 6;
const APPS = ['first', 'second'];

interface Report {
  seed: number;
  kills: string[];
  violations: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('chaos: controller-mode workers SIGKILLed while a directive is created and changed', () => {
  let h: Harness;
  const workers: CliProcess[] = [];
  beforeAll(async () => {
    h = await startHarness('chaos-controller', { worker: false, env: { JOB_LOCK_MS: '1000' } });
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => stopCli(worker)));
    await h.close();
  });

  const env = (): Record<string, string> => ({
    ...h.env,
    WATCH_DIRECTIVES: 'true',
    BOUNCE_MODE: 'delete',
    LOG_LEVEL: 'error',
  });
  const spawn = (): void => void workers.push(startCli('work', env()));
  async function kill(index: number): Promise<void> {
    const [worker] = workers.splice(index, 1);
    if (worker !== undefined) await stopCli(worker, 'SIGKILL');
  }

  /** The runs the queue holds for a directive: job ids are `<uid>.g<generation>.r<runKey>.s<i>`. */
  async function runsOf(uid: string): Promise<string[]> {
    const jobs = await h.serve.queue.getJobs([
      'completed',
      'failed',
      'active',
      'waiting',
      'delayed',
      'waiting-children',
      'prioritized',
    ]);
    const runs = jobs
      .map((job) => job?.id ?? '')
      .filter((id) => id.startsWith(`${uid}.`))
      .map((id) => id.replace(/\.s\d+$/, ''));
    return [...new Set(runs)].sort();
  }

  async function runOnce(seed: number): Promise<Report> {
    const random = mulberry32(seed);
    const report: Report = { seed, kills: [], violations: [] };
    const namespace = `chaos-ctl-${seed}`;
    for (const app of APPS) {
      h.sim.addWorkload({
        namespace,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: REPLICAS,
        readinessDelayMs: 50 + Math.floor(random() * 250),
      });
    }
    const second = new Set(h.sim.listPods(namespace, { app: 'second' }).map((p) => p.metadata.uid));
    const specs = Object.fromEntries(
      APPS.map((app) => [
        app,
        [{ namespace, labels: { app }, maxUnavailable: 1 + Math.floor(random() * 3) }],
      ]),
    );
    const selector = (app: string) => specs[app]!;
    const name = `ctl-${seed}`;
    const changeAt = 100 + Math.floor(random() * 1200);
    const annotateAt = changeAt + 100 + Math.floor(random() * 1200);
    const killsAt = [Math.floor(random() * 2500), Math.floor(random() * 2500)].sort(
      (a, b) => a - b,
    );
    const started = Date.now();
    const created = h.sim.applyDirective(directive(namespace, name, selector('first')));
    const uid = created.metadata.uid;
    let issuedAt = '';
    const moments = [
      {
        at: changeAt,
        act: async (): Promise<void> =>
          void h.sim.applyDirective(directive(namespace, name, selector('second'))),
      },
      {
        at: annotateAt,
        act: async (): Promise<void> => {
          issuedAt = new Date().toISOString();
          h.sim.applyDirective({
            ...directive(namespace, name, selector('second')),
            metadata: { namespace, name, annotations: { [ISSUED_AT_ANNOTATION]: issuedAt } },
          });
        },
      },
      ...killsAt.map((at) => ({
        at,
        act: async () => {
          const which = Math.floor(random() * workers.length);
          await kill(which);
          report.kills.push(`worker ${which} at ${at} ms`);
          spawn();
        },
      })),
    ].sort((a, b) => a.at - b.at);
    for (const moment of moments) {
      await sleep(Math.max(0, moment.at - (Date.now() - started)));
      await moment.act();
    }
    await eventually(
      `${namespace}/${name} FINISHED for ${issuedAt}`,
      () => {
        const d = h.sim.getDirective(namespace, name) as any;
        const done =
          d?.status?.state === 'FINISHED' &&
          d.status.observedGeneration === 2 &&
          d.status.issuedAt === issuedAt;
        return done ? true : undefined;
      },
      45_000,
    ).catch(async (error: unknown) => {
      const d = h.sim.getDirective(namespace, name) as any;
      const state = JSON.stringify({ metadata: d?.metadata, status: d?.status });
      const runs = await runsOf(uid);
      const shown = `${runs.length} runs (${runs.slice(0, 5).join(', ')})`;
      throw new Error(`${String(error)}; ${shown}; directive ${state}`);
    });
    const runs = await runsOf(uid);
    const deletions = new Map(h.sim.deletionsByUid());
    const requests = new Map(h.sim.deleteRequestsByUid());

    // Restart every worker: what they see at start-up is already described by its status.
    await Promise.all(workers.map((_, index) => kill(index)));
    while (workers.length > 0) await kill(0);
    spawn();
    spawn();
    await eventually('the restarted workers to register', async () =>
      (await h.serve.queue.getWorkersCount()) === 2 ? true : undefined,
    );
    await sleep(1500);

    const generations = runs.map((run) => run.split('.')[1]);
    if (generations.filter((g) => g === 'g1').length > 1)
      report.violations.push(`${runs.length} runs`);
    if (generations.filter((g) => g === 'g2').length > 2)
      report.violations.push(`${runs.length} runs`);
    if (!runs.includes(`${uid}.g2.r${Date.parse(issuedAt)}`)) {
      report.violations.push(`no run of the annotation ${issuedAt}`);
    }
    for (const [podUid, count] of deletions) {
      if (count > 1 || (requests.get(podUid) ?? 0) > 1) {
        report.violations.push(`${podUid} deleted ${count}×, ${requests.get(podUid)} DELETEs`);
      }
    }
    for (const podUid of second) {
      if (deletions.get(podUid) !== 1) report.violations.push(`${podUid} of second not bounced`);
    }
    if ((await runsOf(uid)).join() !== runs.join()) {
      report.violations.push('a restart started a run');
    }
    if (h.sim.deletionsByUid().size !== deletions.size) {
      report.violations.push('a restart deleted pods');
    }
    return report;
  }

  it(
    `keeps each issuance to one run over ${RUNS} seeded runs`,
    { timeout: RUNS * 90_000 },
    async () => {
      spawn();
      spawn();
      let kills = 0;
      for (let seed = FIRST_SEED; seed < FIRST_SEED + RUNS; seed += 1) {
        const report = await runOnce(seed).catch((error: unknown) => {
          throw new Error(`controller chaos run with CHAOS_SEED=${seed} failed: ${String(error)}`);
        });
        kills += report.kills.length;
        expect(report.violations, `CHAOS_SEED=${seed} kills=${report.kills.join(',')}`).toEqual([]);
      }
      expect(kills).toBeGreaterThan(0);
    },
  );
});
