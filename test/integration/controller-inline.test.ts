// Controller mode and inline events (DESIGN §2 Runs, §4 Controller mode): an inline event is
// applied to the cluster, and the worker's directive watch sees the applied object at once. One
// event must still start exactly one run, counted once against MAX_RUNS_PER_HOUR, and no run
// that is then superseded may choose a pod.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { InlineApplies } from '../../src/queue/inline-applies.js';
import { runBudgetKey } from '../../src/queue/names.js';
import { runKeyOf } from '../../src/queue/run-identity.js';
import type { SelectorJobData } from '../../src/queue/selector-job.js';
import {
  ALL_AT_ONCE,
  directive,
  eventually,
  startHarness,
  type Harness,
} from '../support/harness.js';
import { REDIS_URL } from '../support/redis.js';

const NS = 'inline-ctl';
const APPS = ['a', 'b', 'c', 'd', 'e'];
/** Directives created by one burst: one per app, and more that select no pod. */
const BURST = Array.from({ length: 12 }, (_, i) => APPS[i] ?? `none-${i}`);

describe('an inline event in controller mode', () => {
  let h: Harness;
  let redis: Redis;
  beforeAll(async () => {
    h = await startHarness('controller-inline', {
      env: { ...ALL_AT_ONCE, WATCH_DIRECTIVES: 'true', ALLOWED_NAMESPACES: NS },
    });
    redis = new Redis(REDIS_URL);
    for (const app of APPS) {
      h.sim.addWorkload({
        namespace: NS,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 2,
      });
    }
  });
  afterAll(async () => {
    redis.disconnect();
    await h.close();
  });

  /** Every run the queue holds for the directive `uid`: `generation:runKey`, and whether it chose pods. */
  async function runsOf(uid: string): Promise<Map<string, boolean>> {
    const jobs = await h.serve.queue.getJobs([
      'completed',
      'failed',
      'active',
      'waiting',
      'waiting-children',
      'delayed',
      'prioritized',
    ]);
    const runs = new Map<string, boolean>();
    for (const job of jobs) {
      const data = job?.data as SelectorJobData | undefined;
      if (data?.directive.uid !== uid) continue;
      const run = `${data.generation}:${data.runKey ?? '0'}`;
      runs.set(run, (runs.get(run) ?? false) || data.progress.chosen !== undefined);
    }
    return runs;
  }

  const finished = (name: string, issuedAt: string) =>
    eventually(`${name} FINISHED for ${issuedAt}`, () => {
      const status = h.sim.getDirective(NS, name)?.status as any;
      return status?.state === 'FINISHED' && status.issuedAt === issuedAt ? status : undefined;
    });

  it('starts one run per event, under a burst of inline events, each counted once', async () => {
    const base = Date.now() - 60_000;
    const at = (i: number) => new Date(base + i * 1000).toISOString();
    // A burst: every directive created inline at once, each event naming its issuance.
    const answers = await Promise.all(
      BURST.map((app, i) =>
        h.post({
          directive: directive(NS, `burst-${app}`, [{ namespace: NS, labels: { app } }]),
          issuedAt: at(i),
        }),
      ),
    );
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ duplicate: false, generation: 1, issuedAt: at(i) });
    }
    await Promise.all(BURST.map((app, i) => finished(`burst-${app}`, at(i))));
    // Then an edit of one of them, inline again: a new generation, one run more.
    const edited = await h.post({
      directive: directive(NS, 'burst-a', [{ namespace: NS, labels: { app: 'b' } }]),
      issuedAt: at(20),
    });
    expect(edited.body).toMatchObject({ duplicate: false, generation: 2, issuedAt: at(20) });
    await finished('burst-a', at(20));

    const seen: Record<string, { runs: string[]; counted: number }> = {};
    const expected: Record<string, { runs: string[]; counted: number }> = {};
    for (const [i, app] of BURST.entries()) {
      const { uid } = answers[i]!.body;
      const runs = [`1:${runKeyOf(at(i))}`, ...(app === 'a' ? [`2:${runKeyOf(at(20))}`] : [])];
      expected[app] = { runs, counted: runs.length };
      const held = await runsOf(uid);
      seen[app] = {
        runs: [...held.keys()].sort(),
        counted: await redis.zcard(runBudgetKey(h.prefix, { namespace: NS, name: `burst-${app}` })),
      };
    }
    const total = (of: typeof seen) =>
      Object.values(of).reduce(
        (sum, { runs, counted }) => [sum[0]! + runs.length, sum[1]! + counted],
        [0, 0],
      );
    console.log(
      JSON.stringify({
        events: BURST.length + 1,
        runsAndCounted: total(seen),
        runsPerDirective: seen,
      }),
    );
    expect(seen).toEqual(expected);
  });

  it('leaves a directive to the controller once an inline apply that never decided its run lapses', async () => {
    // An api that applied the directive and died before its run claim: its hold lapses.
    const ref = { namespace: NS, name: 'orphan' };
    await new InlineApplies(redis, h.prefix, 1500).begin(ref);
    const applied = Date.now();
    h.sim.applyDirective(directive(NS, 'orphan', [{ namespace: NS, labels: { app: 'c' } }]));
    const status = await eventually('the orphan FINISHED', () => {
      const found = h.sim.getDirective(NS, 'orphan')?.status as any;
      return found?.state === 'FINISHED' ? found : undefined;
    });
    expect(Date.now() - applied).toBeGreaterThanOrEqual(1400);
    expect(status.issuedAt).toBeUndefined();
    const { uid } = h.sim.getDirective(NS, 'orphan')!.metadata as { uid: string };
    expect([...(await runsOf(uid)).keys()]).toEqual(['1:0']);
  });
});
