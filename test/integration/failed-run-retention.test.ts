// A failed run's jobs have a bounded lifetime (RETENTION_DAYS), and none of them runs meanwhile
// unless the failed one is retried. The later selectors of a failed run wait in
// `waiting-children` (that is what lets a retry resume the chain); they go, with the failed job,
// when the worker's sweep removes it after the retention period. BullMQ's `removeOnFail: {age}`
// released them instead: the next selector moved to `wait` and ran.
import { FlowProducer, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Directive } from '../../src/directive/types.js';
import { runChain, runFor } from '../../src/queue/enqueue.js';
import { removeFailedRuns } from '../../src/queue/failed-runs.js';
import { QUEUE_NAME } from '../../src/queue/names.js';
import {
  eventually,
  startHarness,
  stuckMesh,
  TOKEN,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { deletePrefix, REDIS_URL } from '../support/redis.js';

const DAY_MS = 86_400_000;

/** Every key under the prefix that belongs to one of these jobs (the job, its logs, its deps). */
async function jobKeys(redis: Redis, prefix: string, jobIds: string[]): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}:${QUEUE_NAME}:*`, count: 1000 })) {
    keys.push(...(batch as string[]));
  }
  return keys.filter((key) => jobIds.some((id) => key.includes(`:${id}`)));
}

function directiveOf(name: string, selectors: number): Directive {
  return {
    apiVersion: 'internal.gloo.solo.io/v2',
    kind: 'PodBounceDirective',
    metadata: { namespace: 'ns', name, uid: `uid-${name}`, generation: 1, resourceVersion: '1' },
    spec: {
      podsToBounce: Array.from({ length: selectors }, (_, i) => ({
        namespace: 'ns',
        labels: { app: `a${i}` },
        waitForReplicas: 0,
      })),
    },
  };
}

describe('the jobs of a failed run, on BullMQ with the selector job options', () => {
  const prefix = `pbtest-failed-runs-${process.pid}`;
  let redis: Redis;
  let queue: Queue;
  let flows: FlowProducer;
  let worker: Worker;
  const ran: string[] = [];
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue(QUEUE_NAME, { connection: redis, prefix });
    flows = new FlowProducer({ connection: redis, prefix });
    // Every first selector fails for good; any other job that runs is recorded.
    worker = new Worker(
      QUEUE_NAME,
      async (job) => {
        if (job.data.selectorIndex === 0) throw new UnrecoverableError('selector 0 fails');
        ran.push(job.id!);
      },
      { connection: redis, prefix },
    );
  });
  afterAll(async () => {
    await worker.close();
    await Promise.all([queue.close(), flows.close()]);
    await deletePrefix(prefix);
    redis.disconnect();
  });

  it('keeps the later selectors waiting past the retention, then removes them with the failed one', async () => {
    // A retention of one second, so that the failed job outlives it during the test.
    const retentionSeconds = 1;
    const failing = directiveOf('three', 3);
    const run = runFor(failing, undefined);
    await flows.add(runChain(failing, run, retentionSeconds));
    const [first] = run.jobIds;
    await eventually('selector 0 failed', async () =>
      (await queue.getJob(first!))?.finishedOn !== undefined ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Another run fails after that: BullMQ's removal by age would run now and release selector 1.
    const other = directiveOf('other', 1);
    const otherRun = runFor(other, undefined);
    await flows.add(runChain(other, otherRun, retentionSeconds));
    await eventually('the other run failed', async () =>
      (await queue.getJob(otherRun.jobIds[0]!))?.finishedOn !== undefined ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran).toEqual([]);
    const states = await Promise.all(run.jobIds.map(async (id) => queue.getJobState(id)));
    expect(states).toEqual(['failed', 'waiting-children', 'waiting-children']);

    // The sweep at the retention clock: the failed jobs go, each with the rest of its run.
    expect(await jobKeys(redis, prefix, run.jobIds)).not.toEqual([]);
    expect(await removeFailedRuns(queue, Date.now())).toBe(2);
    expect(await jobKeys(redis, prefix, [...run.jobIds, ...otherRun.jobIds])).toEqual([]);
    expect(await queue.getJobCounts()).toMatchObject({
      failed: 0,
      'waiting-children': 0,
      waiting: 0,
    });
    expect(ran).toEqual([]);
  });
});

describe('an aborted run past RETENTION_DAYS', () => {
  let h: Harness;
  beforeAll(async () => {
    // Waits outlast the test: the run can only end by its abort.
    h = await startHarness('failed-retention', {
      env: { READINESS_TIMEOUT_SECONDS: '120', RETENTION_DAYS: '3' },
    });
    stuckMesh(h, 'stuck');
  });
  afterAll(async () => h.close());

  it("is removed by the worker's sweep with every job of it, and none of them ran", async () => {
    const accepted = await h.post({ directive: { namespace: 'istio-system', name: 'stuck' } });
    expect(accepted.status).toBe(202);
    const jobIds = accepted.body.jobIds as string[];
    const abort = await fetch(`${h.serve.url}/v1/directives/istio-system/stuck/abort`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(abort.status).toBe(202);
    await waitForState(h, 'istio-system', 'stuck', 'FAILED');
    const states = async () => (await h.get('/v1/directives/istio-system/stuck')).body.jobs;
    await eventually('selector 0 failed', async () =>
      (await states())[0]?.state === 'failed' ? true : undefined,
    );
    const redis = h.serve.redis;
    const sweeper = h.work!.failedRuns;

    // Within the retention period nothing goes: a retry could still resume the run.
    expect(await sweeper.sweep()).toBe(0);
    expect(await sweeper.sweep(Date.now() + 3 * DAY_MS - 60_000)).toBe(0);
    expect((await states()).map((job: any) => job.state)).toEqual(['failed', 'waiting-children']);

    // Past it, the failed job goes with the selector waiting on it; the gateway was never bounced.
    expect(await jobKeys(redis, h.prefix, jobIds)).not.toEqual([]);
    expect(await sweeper.sweep(Date.now() + 3 * DAY_MS + 60_000)).toBe(1);
    expect(await states()).toEqual([]);
    expect(await jobKeys(redis, h.prefix, jobIds)).toEqual([]);
    expect(await redis.zcard(`${h.prefix}:${QUEUE_NAME}:waiting-children`)).toBe(0);
    const gateways = h.sim.deletedPods().filter((pod) => pod.name.startsWith('gateway'));
    expect(gateways).toEqual([]);
  });
});
