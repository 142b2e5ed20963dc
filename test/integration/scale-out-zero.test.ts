import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAME, selectorJobId } from '../../src/queue/names.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { rootCertSync, syncRootCert, unsyncedRootCert } from '../support/root-cert.js';
import { addApps } from '../support/workloads.js';

/**
 * KEDA may scale the workers to zero while a job waits (delayed) for a gate. The wait must still be
 * re-checked once a worker exists again, and KEDA must be able to see that one is needed: the
 * waiting + prioritized + delayed count it reads (LLEN wait + ZCARD prioritized + ZCARD delayed,
 * as the chart's ScaledObject does) stays above zero meanwhile, and counts a new run's job too.
 */
describe('workers scaled to zero while a job waits', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('zero', { env: { POLL_INTERVAL_MS: '200' } });
  });
  afterAll(async () => h.close());

  it('resumes the delayed re-check when a worker comes back, and the directive finishes', async () => {
    addApps(h, 'bookinfo', ['reviews'], { replicas: 3 });
    const originals = podUids(h, 'bookinfo');
    unsyncedRootCert(h, 'istio-system', 'bookinfo');
    h.sim.applyDirective(
      directive('bookinfo', 'parked', [
        {
          namespace: 'bookinfo',
          labels: { app: 'reviews' },
          waitForReplicas: 3,
          rootCertSync: rootCertSync('istio-system', 'bookinfo'),
        },
      ]),
    );
    const answer = await h.post({ directive: { namespace: 'bookinfo', name: 'parked' } });
    expect(answer.status).toBe(202);
    const uid = h.sim.getDirective('bookinfo', 'parked')!.metadata.uid;
    const job = async () => h.serve.queue.getJob(selectorJobId(uid, 1, '0', 0));
    await eventually('the job to be parked as delayed', async () =>
      (await (await job())?.getState()) === 'delayed' ? true : undefined,
    );

    // Scale to zero: the only worker drains and stops.
    await h.work!.close();
    expect(await h.serve.queue.getWorkersCount()).toBe(0);

    // The gate opens and the job's delay runs out with no worker to notice: nothing moves...
    syncRootCert(h, 'bookinfo');
    // BullMQ scores a delayed job by its due time (ms, shifted left 12 bits).
    const prefix = h.config.queuePrefix;
    const jobId = selectorJobId(uid, 1, '0', 0);
    const score = await h.serve.redis.zscore(`${prefix}:${QUEUE_NAME}:delayed`, jobId);
    const dueAt = Math.floor(Number(score) / 0x1000);
    expect(dueAt).toBeGreaterThan(0);
    await eventually('the delay to run out', () => (Date.now() > dueAt + 500 ? true : undefined));
    expect(await (await job())!.getState()).toBe('delayed');
    expect(h.sim.deletedPods()).toEqual([]);

    // ...but the queue still shows work, which is what the KEDA trigger scales from zero on.
    const queued = async () =>
      (await h.serve.redis.llen(`${prefix}:${QUEUE_NAME}:wait`)) +
      (await h.serve.redis.zcard(`${prefix}:${QUEUE_NAME}:prioritized`)) +
      (await h.serve.redis.zcard(`${prefix}:${QUEUE_NAME}:delayed`));
    expect(await queued()).toBe(1);
    // A new run's job, queued at its namespace's turn (a priority), is counted as well.
    addApps(h, 'other', ['ratings'], { replicas: 1 });
    const others = podUids(h, 'other');
    h.sim.applyDirective(
      directive('other', 'fresh', [{ namespace: 'other', labels: { app: 'ratings' } }]),
    );
    expect((await h.post({ directive: { namespace: 'other', name: 'fresh' } })).status).toBe(202);
    expect(await queued()).toBe(2);

    // A worker comes back (KEDA scaled 0 -> 1): the overdue re-check fires and the run finishes.
    h.startWorker();
    await waitForState(h, 'bookinfo', 'parked', 'FINISHED', 30_000);
    await waitForState(h, 'other', 'fresh', 'FINISHED', 30_000);
    expectEachDeletedOnce(h, [...originals, ...others]);
  });
});
