import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { startSentinel, type SentinelTopology } from '../support/redis-topology.js';

describe('Redis Sentinel: the master switched in the middle of a run', () => {
  let topology: SentinelTopology;
  let h: Harness;
  /** The pods of earlier runs on this simulator (each run checks its own). */
  const earlier: string[] = [];
  beforeAll(async () => {
    topology = await startSentinel();
    // The production job lock (30 s), not the harness's 2 s: a failover takes seconds, and a lock
    // that expires meanwhile would hand a running step to the stalled-job path instead.
    h = await startHarness('sentinel', {
      env: { ...topology.env, REDIS_URL: '', JOB_LOCK_MS: '30000' },
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

  it('after SENTINEL FAILOVER: the directive finishes, no pod deleted twice', async () => {
    await runThrough('graceful', () => topology.failover());
  });

  it('after the master is killed: the directive finishes, no pod deleted twice', async () => {
    await runThrough('killed', () => topology.killMaster());
  });

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
