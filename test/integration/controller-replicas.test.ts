// Controller mode with replicas (DESIGN §4): two worker processes watch the same directives (one
// cluster-wide watch each, ALLOWED_NAMESPACES unset); each issuance still runs exactly once, and
// each pod is sent exactly one DELETE.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUED_AT_ANNOTATION } from '../../src/directive/types.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';
import { startCli, stopCli, type CliProcess } from '../support/processes.js';
import { REDIS_URL } from '../support/redis.js';

const NS = 'replicas';

describe('two controller replicas', () => {
  let h: Harness;
  const workers: CliProcess[] = [];
  beforeAll(async () => {
    h = await startHarness('controller-replicas', { worker: false });
    const env = {
      ...h.env,
      WATCH_DIRECTIVES: 'true',
      BOUNCE_MODE: 'delete',
      DEFAULT_MAX_UNAVAILABLE: '2',
      LOG_LEVEL: 'warn',
    };
    for (let index = 0; index < 2; index += 1) workers.push(startCli('work', env));
    await eventually('both workers to register', async () =>
      (await h.serve.queue.getWorkersCount()) === 2 ? true : undefined,
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workers.map((worker) => stopCli(worker, 'SIGTERM')));
    await h.close();
  });

  const state = (name: string) => h.sim.getDirective(NS, name)?.status as any;
  const finished = (name: string, generation: number, issuedAt?: string) =>
    eventually(
      `${name} FINISHED (generation ${generation}${issuedAt ? `, ${issuedAt}` : ''})`,
      () => {
        const status = state(name);
        const done =
          status?.state === 'FINISHED' &&
          status.observedGeneration === generation &&
          (issuedAt === undefined || status.issuedAt === issuedAt);
        return done ? status : undefined;
      },
      60_000,
    );

  it('runs each creation, edit and annotation once, one DELETE per pod', async () => {
    for (const app of ['web', 'api']) {
      h.sim.addWorkload({
        namespace: NS,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 4,
      });
    }
    const web = podUids(h, NS, { app: 'web' });
    const api = podUids(h, NS, { app: 'api' });
    h.sim.applyDirective(directive(NS, 'mesh', [{ namespace: NS, labels: { app: 'web' } }]));
    await finished('mesh', 1);
    expectEachDeletedOnce(h, web);

    h.sim.applyDirective(directive(NS, 'mesh', [{ namespace: NS, labels: { app: 'api' } }]));
    await finished('mesh', 2);
    expectEachDeletedOnce(h, [...web, ...api]);

    const replacements = podUids(h, NS, { app: 'api' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const at = new Date().toISOString();
    h.sim.applyDirective({
      ...directive(NS, 'mesh', [{ namespace: NS, labels: { app: 'api' } }]),
      metadata: { namespace: NS, name: 'mesh', annotations: { [ISSUED_AT_ANNOTATION]: at } },
    });
    await finished('mesh', 2, at);
    expectEachDeletedOnce(h, [...web, ...api, ...replacements]);
    // Three runs of one selector each: three jobs, whichever replica claimed them.
    const counts = await eventually('the last job to complete', async () => {
      const jobs = await h.serve.queue.getJobCounts(
        'completed',
        'failed',
        'active',
        'waiting',
        'prioritized',
      );
      return jobs.active === 0 && jobs.waiting === 0 && jobs.prioritized === 0 ? jobs : undefined;
    });
    expect(counts).toEqual({ completed: 3, failed: 0, active: 0, waiting: 0, prioritized: 0 });
    expect(h.sim.events().filter((event: any) => event.reason === 'Accepted')).toHaveLength(3);

    // Deleted: both replicas see it go and reclaim its keys, the second finding nothing left.
    const uid = h.sim.getDirective(NS, 'mesh')!.metadata.uid;
    const redis = new Redis(REDIS_URL);
    const keysOf = async () =>
      (await redis.keys(`${h.prefix}:*`)).filter((key) => key.includes(uid));
    expect((await keysOf()).length).toBeGreaterThan(0);
    h.sim.deleteDirective(NS, 'mesh');
    await eventually('the deleted directive to leave nothing in Redis', async () =>
      (await keysOf()).length === 0 ? true : undefined,
    );
    redis.disconnect();
  });
});
