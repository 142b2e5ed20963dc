// DESIGN §3/§4 pause and abort, worker side: the annotation pod-bouncer.io/paused stops further
// batches while waits go on, removing it resumes at once; the abort key ends the run FAILED
// (Aborted) before the next batch, and a retry resumes it without bouncing any pod twice.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAUSED_ANNOTATION } from '../../src/directive/types.js';
import { abortKey, QUEUE_NAME } from '../../src/queue/names.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { REDIS_URL } from '../support/redis.js';

const POLL_MS = 100;

describe('pause and abort', () => {
  let h: Harness;
  let redis: Redis;
  let queue: Queue;
  const earlier: string[] = [];
  beforeAll(async () => {
    h = await startHarness('pause-abort', { env: { POLL_INTERVAL_MS: String(POLL_MS) } });
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue(QUEUE_NAME, { connection: redis, prefix: h.prefix });
  });
  afterAll(async () => {
    await queue.close();
    redis.disconnect();
    await h.close();
  });

  function setUp(name: string): { manifest: any; originals: string[] } {
    const namespace = `ns-${name}`;
    const labels = { app: name };
    h.sim.addWorkload({
      namespace,
      name,
      kind: 'ReplicaSet',
      labels,
      replicas: 6,
      readinessDelayMs: 300,
    });
    const manifest = directive(namespace, name, [
      { namespace, labels, waitForReplicas: 6, maxUnavailable: 2 },
    ]);
    h.sim.applyDirective(manifest);
    h.sim.resetRequests();
    return { manifest, originals: podUids(h, namespace, labels) };
  }

  function evictions(): number {
    return h.sim.requests().filter((r) => r.subresource === 'eviction' || r.method === 'DELETE')
      .length;
  }

  function ready(namespace: string, name: string): any {
    return (h.sim.getDirective(namespace, name) as any)?.status?.conditions?.find(
      (c: any) => c.type === 'Ready',
    );
  }

  /** Resolves on the first pod deletion of the namespace. */
  function firstDeletion(namespace: string): Promise<void> {
    return new Promise((resolve) => {
      const stop = h.sim.onPodDeleted((pod) => {
        if (pod.namespace !== namespace) return;
        stop();
        resolve();
      });
    });
  }

  it('bounces nothing while paused, goes on waiting, and resumes at once when unpaused', async () => {
    const { manifest, originals } = setUp('paused');
    const { namespace, name } = manifest.metadata;
    const deleted = firstDeletion(namespace);
    expect((await h.post({ directive: { namespace, name } })).status).toBe(202);
    await deleted;
    // Paused while the first batch's replacements are not Ready yet.
    h.sim.applyDirective({
      ...manifest,
      metadata: { namespace, name, annotations: { [PAUSED_ANNOTATION]: 'true' } },
    });
    await eventually('the Ready condition to say Paused', () =>
      ready(namespace, name)?.reason === 'Paused' ? true : undefined,
    );
    // The first batch's replacements turn Ready meanwhile (the wait goes on)...
    await eventually('the first batch replaced', () =>
      h.sim
        .listPods(namespace, { app: name })
        .filter((p: any) => !originals.includes(p.metadata.uid)).length >= 2
        ? true
        : undefined,
    );
    const before = evictions();
    // ...and for 15 re-check cycles after that, no pod is bounced.
    await new Promise((resolve) => setTimeout(resolve, 15 * POLL_MS));
    expect(evictions()).toBe(before);
    expect(before).toBe(2);
    expect(ready(namespace, name)).toMatchObject({ status: 'False', reason: 'Paused' });
    expect(h.sim.getDirective(namespace, name)?.status?.state).toBe('BOUNCING_PODS');

    h.sim.applyDirective({ ...manifest, metadata: { namespace, name, annotations: {} } });
    await waitForState(h, namespace, name, 'FINISHED');
    expectEachDeletedOnce(h, originals, earlier);
    earlier.push(...originals);
  });

  it('aborts before the next batch, FAILED Aborted; a retry finishes with every pod bounced once', async () => {
    const { manifest, originals } = setUp('aborted');
    const { namespace, name } = manifest.metadata;
    const deleted = firstDeletion(namespace);
    const accepted = await h.post({ directive: { namespace, name } });
    expect(accepted.status).toBe(202);
    await deleted;
    // What the abort route does: the key of the run, then promote its delayed job.
    const { uid, generation } = accepted.body;
    await redis.set(abortKey(h.prefix, uid, generation, '0'), new Date().toISOString());
    const [jobId] = accepted.body.jobIds as string[];
    const job = await queue.getJob(jobId!);
    await job?.promote().catch(() => undefined);

    const failed = await waitForState(h, namespace, name, 'FAILED');
    expect(failed.status.error).toBe('selector 0: aborted');
    const stalled = failed.status.conditions.find((c: any) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'Aborted' });
    expect(ready(namespace, name)).toMatchObject({ status: 'False', reason: 'Aborted' });
    expect(failed.status.conditions.find((c: any) => c.type === 'Reconciling')).toBeUndefined();
    const atAbort = evictions();
    expect(atAbort).toBeLessThan(originals.length);
    await new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS));
    expect(evictions()).toBe(atAbort);

    // What the retry route does: delete the key, retry the failed job.
    await redis.del(abortKey(h.prefix, uid, generation, '0'));
    await (await queue.getJob(jobId!))?.retry('failed');
    // FAILED until the retried job runs (the worker then writes BOUNCING_PODS).
    const done = await waitForState(h, namespace, name, 'FINISHED', 30_000, false);
    expect(done.status.conditions.find((c: any) => c.type === 'Stalled')).toBeUndefined();
    expectEachDeletedOnce(h, originals, earlier);
  });
});
