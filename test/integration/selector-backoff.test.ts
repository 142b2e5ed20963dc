// DESIGN §4: transient Kubernetes errors are retried with backoff. The selector jobs' backoff is
// the worker's own strategy (1 s doubling, capped at 30 s, jittered), not BullMQ's built-in
// `exponential` (1, 2, 4 … 64 s over the 8 attempts, no cap, no jitter): a job whose evictions
// keep failing with 500 is delayed by what that strategy computed, as BullMQ records it in Redis.
import { Queue, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { QUEUE_NAME } from '../../src/queue/names.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';

/** Attempts each job has made before the worker takes it: the first, and the seventh of eight. */
const ATTEMPTS_MADE = { first: 0, seventh: 6 } as const;
/** The strategy's draw, fixed: BullMQ's built-in types draw nothing. */
const DRAW = 0.5;

describe('the backoff of a selector job after a transient failure', () => {
  let h: Harness;
  let queue: Queue;
  const jobIds = new Map<string, string>();

  beforeAll(async () => {
    // No worker until every job's attempts are set.
    h = await startHarness('backoff', { worker: false });
    queue = new Queue(QUEUE_NAME, { connection: h.serve.redis, prefix: h.prefix });
    h.sim.setFaults({ errorRate: 1, status: 500, resources: ['eviction'] });
    for (const [name, attemptsMade] of Object.entries(ATTEMPTS_MADE)) {
      const namespace = `backoff-${name}`;
      const labels = { app: name };
      h.sim.addWorkload({ namespace, name, kind: 'ReplicaSet', labels, replicas: 1 });
      h.sim.applyDirective(directive(namespace, name, [{ namespace, labels }]));
      const accepted = await h.post({ directive: { namespace, name } });
      expect(accepted.status).toBe(202);
      const [jobId] = accepted.body.jobIds as string[];
      await h.serve.redis.hset(`${h.prefix}:${QUEUE_NAME}:${jobId}`, 'atm', attemptsMade);
      jobIds.set(name, jobId!);
    }
    vi.spyOn(Math, 'random').mockReturnValue(DRAW);
    h.startWorker();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    h.sim.setFaults(null);
    await queue.close();
    await h.close();
  });

  /** The job once BullMQ has delayed it for its next attempt, as it recorded it. */
  function retried(name: keyof typeof ATTEMPTS_MADE): Promise<Job> {
    const jobId = jobIds.get(name)!;
    const attempts = ATTEMPTS_MADE[name] + 1;
    return eventually(`${jobId} delayed after attempt ${attempts}`, async () => {
      const job = await queue.getJob(jobId);
      if (job === undefined || job.attemptsMade !== attempts) return undefined;
      return (await job.getState()) === 'delayed' ? job : undefined;
    });
  }

  it('after the first failure, waits what the strategy drew between 0.5 and 1 s', async () => {
    const job = await retried('first');
    expect(job.opts.backoff).toEqual({ type: 'selector' });
    // 500 ms + DRAW · 500 ms; the built-in exponential would record 1000.
    expect(job.delay).toBe(750);
  });

  it('caps the wait at 30 s where the built-in exponential would wait 64 s', async () => {
    const job = await retried('seventh');
    // 15 s + DRAW · 15 s: the ceiling 1 s · 2⁶ is over the cap.
    expect(job.delay).toBe(22_500);
  });
});
