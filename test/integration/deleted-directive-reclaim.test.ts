// What a deleted directive held in Redis is reclaimed (ADR 0023): its runs' jobs, markers, records
// and other per-directive keys go within moments of its deletion, whether its run had finished or
// was still waiting; a directive re-created under the same name (a new uid) keeps its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { LEASE_OWNER_FIELD, QUEUE_NAME, bounceLeaseKey } from '../../src/queue/names.js';
import {
  ALL_AT_ONCE,
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { redisBytes } from '../support/redis-bytes.js';
import { REDIS_URL } from '../support/redis.js';
import { addApps } from '../support/workloads.js';

const NS = 'reclaim';
const SELECTORS = 300;

/** Selectors of the size Gloo's issuer writes, a dozen long labels each, matching no pod. */
const large = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    namespace: NS,
    labels: Object.fromEntries(
      Array.from({ length: 12 }, (_, j) => [
        `label-key-${j}.example.com/x${i}`,
        `v${'y'.repeat(30)}`,
      ]),
    ),
    waitForReplicas: 0,
  }));

describe('a deleted directive in Redis', () => {
  let h: Harness;
  let redis: Redis;
  // The queue's event stream is capped by BullMQ (10,000 entries) whatever the directives do.
  const bytes = () => redisBytes(h.prefix, (key) => key === `${h.prefix}:${QUEUE_NAME}:events`);
  const keysOf = async (uid: string) =>
    (await redis.keys(`${h.prefix}:*`)).filter((key) => key.includes(uid));

  beforeAll(async () => {
    h = await startHarness('reclaim', {
      env: { ...ALL_AT_ONCE, WATCH_DIRECTIVES: 'true', ALLOWED_NAMESPACES: NS },
    });
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    redis.disconnect();
    await h.close();
  });

  it('is reclaimed after its run, back to the baseline', async () => {
    await eventually('the worker to register', async () =>
      (await h.serve.queue.getWorkersCount()) > 0 ? true : undefined,
    );
    const before = await bytes();
    const manifest = directive(NS, 'large', large(SELECTORS));
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 20;
    h.sim.applyDirective(manifest);
    const done = await waitForState(h, NS, 'large', 'FINISHED', 120_000);
    const { uid } = done.metadata;
    const afterRun = await bytes();
    expect((await keysOf(uid)).length).toBeGreaterThan(SELECTORS);

    h.sim.deleteDirective(NS, 'large');
    await eventually('the keys of the deleted directive to go', async () =>
      (await keysOf(uid)).length === 0 ? true : undefined,
    );
    const afterDelete = await bytes();
    const perSelectorPerRun = Math.round((afterRun.bytes - before.bytes) / SELECTORS);
    console.log(
      JSON.stringify({ selectors: SELECTORS, before, afterRun, afterDelete, perSelectorPerRun }),
    );
    expect(afterRun.bytes - before.bytes).toBeGreaterThan(SELECTORS * 1000);
    // What stays is the queue's own bookkeeping (its id counter, meta), a few hundred bytes.
    expect(afterDelete.bytes - before.bytes).toBeLessThan(2048);
  }, 180_000);

  it('ends a waiting run quietly, and spares a directive re-created under the same name', async () => {
    addApps(h, NS, ['stuck'], { replicas: 1, readinessDelayMs: null });
    const selectors = [{ namespace: NS, labels: { app: 'stuck' }, waitForReplicas: 1 }];
    h.sim.applyDirective(directive(NS, 'again', selectors));
    const waiting = await waitForState(h, NS, 'again', 'BOUNCING_PODS');
    const old = waiting.metadata.uid;
    await eventually('the job to wait for its replacement (delayed)', async () =>
      (await h.serve.queue.getJobCounts('delayed')).delayed === 1 ? true : undefined,
    );
    h.sim.deleteDirective(NS, 'again');
    const created = h.sim.applyDirective(
      directive(NS, 'again', [{ namespace: NS, labels: { app: 'none' } }]),
    ) as { metadata: { uid: string } };
    await waitForState(h, NS, 'again', 'FINISHED');
    await eventually('the keys of the deleted directive to go', async () =>
      (await keysOf(old)).length === 0 ? true : undefined,
    );
    // Its waiting job went without a verdict: removed, not failed, and nothing of it still runs.
    const left = await h.serve.queue.getJobs([
      'failed',
      'delayed',
      'active',
      'waiting',
      'prioritized',
    ]);
    expect(left.filter((job) => job?.data.directive.uid === old)).toEqual([]);
    const kept = await keysOf(created.metadata.uid);
    expect(kept.some((key) => key.endsWith(`:run:${created.metadata.uid}`))).toBe(true);
    expect(kept.some((key) => key.includes(`${created.metadata.uid}.g1.`))).toBe(true);
    // The lease is by name: the re-created directive's run took it last, and it stays.
    const lease = await redis.hget(
      bounceLeaseKey(h.prefix, { namespace: NS, name: 'again' }),
      LEASE_OWNER_FIELD,
    );
    expect(lease?.split(' ')[0]).toBe(created.metadata.uid);
  });
});

describe('a deleted directive in Redis, without controller mode', () => {
  let h: Harness;
  let redis: Redis;
  beforeAll(async () => {
    h = await startHarness('reclaim-events', { env: { ...ALL_AT_ONCE } });
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    redis.disconnect();
    await h.close();
  });

  it('is reclaimed once the job running when it was deleted has ended quietly', async () => {
    addApps(h, NS, ['slow'], { replicas: 2 });
    const created = h.sim.applyDirective(
      directive(NS, 'slow', [{ namespace: NS, labels: { app: 'slow' }, waitForReplicas: 2 }]),
    ) as { metadata: { uid: string } };
    const { uid } = created.metadata;
    // Its pods' DELETEs answer slowly: the job is running (locked) when the directive goes.
    h.sim.setFaults({ latencyMs: 2000, methods: ['DELETE'], resources: ['pods'] });
    expect((await h.post({ directive: { namespace: NS, name: 'slow' } })).status).toBe(202);
    await eventually('a DELETE in flight', async () => {
      const [job] = await h.serve.queue.getJobs(['active']);
      return job?.data.progress.inFlight?.length ? true : undefined;
    });
    h.sim.deleteDirective(NS, 'slow');
    h.sim.setFaults(null);
    await eventually('the keys of the deleted directive to go', async () => {
      const keys = (await redis.keys(`${h.prefix}:*`)).filter((key) => key.includes(uid));
      return keys.length === 0 ? true : undefined;
    });
    expect(await h.serve.queue.getJobCounts('failed', 'active', 'completed')).toEqual({
      failed: 0,
      active: 0,
      completed: 0,
    });
  });
});
