import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownRedis, type OwnRedis } from '../support/redis-server.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

/**
 * Redis goes away and comes back. Our own redis-server (no persistence) on a free port, so that
 * stopping it disturbs nobody else; a restart therefore starts from an empty Redis.
 */
describe('Redis unreachable', () => {
  let redis: OwnRedis;
  let h: Harness;
  beforeAll(async () => {
    redis = await ownRedis();
    await redis.start();
    h = await startHarness('redisdown', { env: { REDIS_URL: redis.url } });
    for (const app of ['istiod', 'gateway']) {
      h.sim.addWorkload({
        namespace: 'outage',
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 2,
        readinessDelayMs: 50,
      });
      h.sim.applyDirective(
        directive('outage', app, [{ namespace: 'outage', labels: { app }, waitForReplicas: 2 }]),
      );
    }
  });
  afterAll(async () => {
    await h?.close();
    await redis?.stop();
  });

  it('answers 503 with Retry-After at once, fails /readyz, and recovers when Redis returns', async () => {
    const chosen = ['istiod', 'gateway'].flatMap((app) =>
      h.sim.listPods('outage', { app }).map((pod) => pod.metadata.uid),
    );
    expect(chosen).toHaveLength(4);
    expect((await h.post({ directive: { namespace: 'outage', name: 'istiod' } })).status).toBe(202);
    await waitForState(h, 'outage', 'istiod', 'FINISHED');
    expect((await h.get('/readyz')).status).toBe(200);

    await redis.stop();
    const started = Date.now();
    const refused = await h.post({ directive: { namespace: 'outage', name: 'gateway' } });
    const elapsed = Date.now() - started;
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe('unavailable');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The one timing assertion of the suite: the producer fails fast instead of queueing.
    expect(elapsed).toBeLessThan(1500);
    const ready = await h.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.redis).not.toBe('ok');
    expect(h.sim.deletedPods().filter((p) => p.name.startsWith('gateway'))).toEqual([]);

    await redis.start();
    await eventually('/readyz to pass again', async () =>
      (await h.get('/readyz')).status === 200 ? true : undefined,
    );
    // The sender retries; the refused attempt left nothing behind (no accepted marker, no jobs).
    const accepted = await eventually('the retried event to be accepted', async () => {
      const answer = await h.post({ directive: { namespace: 'outage', name: 'gateway' } });
      return answer.status === 202 ? answer : undefined;
    });
    expect(accepted.body.duplicate).toBe(false);
    await waitForState(h, 'outage', 'gateway', 'FINISHED');
    // Both runs bounced each of their pods exactly once, and nothing else.
    expect(Object.fromEntries(h.sim.deletionsByUid())).toEqual(
      Object.fromEntries(chosen.map((uid) => [uid, 1])),
    );
  });
});
