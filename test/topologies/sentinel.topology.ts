import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import {
  ALL_AT_ONCE,
  directive,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { command, startSentinel, type SentinelTopology } from '../support/redis-topology.js';

describe('Redis Sentinel: the master switched in the middle of a run', () => {
  let topology: SentinelTopology;
  let h: Harness;
  /** The pods of earlier runs on this simulator (each run checks its own). */
  const earlier: string[] = [];
  beforeAll(async () => {
    topology = await startSentinel();
    // The production job lock (30 s), not the harness's 2 s: a failover takes seconds, and a lock
    // that expires meanwhile would hand a running step to the stalled-job path instead.
    // All at once (the Gloo agent's behaviour): the runs below wait for every pod of selector 0
    // to be gone before they switch the master; batching is proven elsewhere.
    h = await startHarness('sentinel', {
      env: { ...topology.env, ...ALL_AT_ONCE, REDIS_URL: '', JOB_LOCK_MS: '30000' },
    });
  });
  afterAll(async () => {
    // The redis-server processes go even when closing pod-bouncer fails.
    try {
      // Bounded: a client stuck after a failover must not keep the redis-servers alive.
      await Promise.race([h?.close(), new Promise((resolve) => setTimeout(resolve, 30_000))]);
    } finally {
      await topology?.stop();
    }
  });

  it('after SENTINEL FAILOVER: the directive finishes, no pod deleted twice', async () => {
    await runThrough('graceful', () => topology.failover());
  });

  it('after the master is killed: the directive finishes, no pod deleted twice', async () => {
    await runThrough('killed', () => topology.killMaster());
  });

  it('answers 503, not 202, while no replica confirms; the retried event then runs', async () => {
    await topology.revive();
    const ns = 'mesh-acked';
    h.sim.addWorkload({
      namespace: ns,
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 2,
      readinessDelayMs: 100,
    });
    const originals = podUids(h, ns);
    h.sim.applyDirective(
      directive(ns, 'certs', [{ namespace: ns, labels: { app: 'istiod' }, waitForReplicas: 2 }]),
    );
    // No worker may take the job before the switch (a paused worker still finishes the fetch it
    // is blocked in): what counts is what the new master holds.
    await h.work!.close();
    const reference = { directive: { namespace: ns, name: 'certs' } };
    const thaw = await topology.freezeReplicas();
    const answer = await h.post(reference);
    // The replica cannot acknowledge: a 202 here would stand for jobs only the master holds.
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).not.toBeNull();
    // The master dies right after; the replica, which never got the jobs, takes over.
    const killed = topology.killMasterNow();
    thaw();
    await killed;
    let again = await h.post(reference);
    for (let attempt = 0; again.status === 503 && attempt < 200; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await h.post(reference);
    }
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    h.startWorker();
    await waitForState(h, ns, 'certs', 'FINISHED', 60_000).catch(async (error: Error) => {
      throw new Error(`${error.message}; queue: ${await describeJobs(ns)}`);
    });
    expectEachDeletedOnce(h, originals, earlier);
    earlier.push(...originals);
  });

  /** The ioredis status of the worker's blocking connection (diagnosis of a stuck fetch loop). */
  function blockingStatus(): unknown {
    const worker = h.work?.worker as any;
    const backend = worker?.backend ?? worker;
    const connection = backend?.blockingConnection;
    const client = connection?._client;
    const raw = client?.status !== undefined ? client : client?.client;
    const queue = raw?.commandQueue?.toArray?.() ?? [];
    return {
      status: raw?.status,
      waiting: worker?.waiting !== null,
      blockUntil: worker?.blockUntil,
      now: Date.now(),
      pending: queue.map((item: any) =>
        [item.command?.name, ...(item.command?.args ?? [])].join(' '),
      ),
      offline: raw?.offlineQueue?.length,
      mainStatus: (h.work as any)?.worker?.connection?._client?.status,
    };
  }

  /** What the queue says about a run's jobs, for a failure message. */
  async function describeJobs(ns: string): Promise<string> {
    const directive = h.sim.getDirective(ns, 'certs')!;
    const jobs = await Promise.all(
      [0, 1].map((i) => h.serve.queue.getJob(`${directive.metadata.uid}.g1.r0.s${i}`)),
    );
    const states = await Promise.all(jobs.map(async (job) => job?.getState()));
    return JSON.stringify({
      status: directive.status,
      states,
      progress: jobs.map((job) => job?.data.progress.step),
      attempts: jobs.map((job) => [job?.attemptsMade, job?.failedReason, job?.stalledCounter]),
      workers: await h.serve.queue.getWorkersCount(),
      blocking: blockingStatus(),
      clients: await command(await topology.masterPort(), 'CLIENT', 'LIST').catch(String),
    });
  }

  /** A two-selector directive whose master is switched while selector 0 waits for replacements. */
  async function runThrough(
    name: string,
    switchMaster: () => Promise<{ from: number; to: number }>,
  ): Promise<void> {
    const ns = `mesh-${name}`;
    h.sim.addWorkload({
      namespace: ns,
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 6,
      // Replacements stay unready until the master has switched: the run cannot end before it.
      readinessDelayMs: null,
    });
    h.sim.addWorkload({
      namespace: ns,
      name: 'reviews',
      kind: 'StatefulSet',
      labels: { app: 'reviews' },
      replicas: 4,
      readinessDelayMs: 100,
    });
    const originals = podUids(h, ns);
    h.sim.applyDirective(
      directive(ns, 'certs', [
        { namespace: ns, labels: { app: 'istiod' }, waitForReplicas: 6 },
        { namespace: ns, labels: { app: 'reviews' }, waitForReplicas: 4 },
      ]),
    );
    let deleted = 0;
    const allIstiodDeleted = new Promise<void>((resolve) => {
      const stop = h.sim.onPodDeleted((pod) => {
        if (pod.namespace !== ns || (deleted += 1) < 6) return;
        stop();
        resolve();
      });
    });
    const reference = { directive: { namespace: ns, name: 'certs' } };
    expect((await h.post(reference)).status).toBe(202);

    // Selector 0 has deleted its pods and waits (a delayed job re-checked every 100 ms) for its
    // replacements when the master goes; selector 1 then runs wholly against the new master.
    await allIstiodDeleted;
    const { from, to } = await switchMaster();
    expect(to).not.toBe(from);
    expect(h.sim.getDirective(ns, 'certs')!.status).toMatchObject({ state: 'BOUNCING_PODS' });
    h.sim.setReadinessDelay(ns, 'istiod', 100);

    await waitForState(h, ns, 'certs', 'FINISHED', 60_000).catch(async (error: Error) => {
      throw new Error(`${error.message}; queue: ${await describeJobs(ns)}`);
    });
    expectEachDeletedOnce(h, originals, earlier);
    earlier.push(...originals);

    // The accepted marker survived the switch: the same generation is still a duplicate (the
    // fail-fast producer may answer 503 while it reconnects, so allow it a few tries).
    let again = await h.post(reference);
    for (let attempt = 0; again.status === 503 && attempt < 100; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await h.post(reference);
    }
    expect(again.status).toBe(202);
    expect(again.body.duplicate).toBe(true);
  }
});
