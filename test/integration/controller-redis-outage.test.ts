// Controller mode and a Redis outage: a directive created while Redis is away is not a verdict on
// the directive (no refusal); the controller tries again with backoff and starts its run once
// Redis is back. Our own redis-server on a free port, so stopping it disturbs nobody else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownRedis, type OwnRedis } from '../support/redis-server.js';
import {
  ALL_AT_ONCE,
  directive,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { addApps } from '../support/workloads.js';

const NS = 'ctl-outage';

describe('controller mode while Redis is unreachable', () => {
  let redis: OwnRedis;
  let h: Harness;
  beforeAll(async () => {
    redis = await ownRedis();
    await redis.start();
    h = await startHarness('controller-redis', {
      env: {
        ...ALL_AT_ONCE,
        REDIS_URL: redis.url,
        WATCH_DIRECTIVES: 'true',
        ALLOWED_NAMESPACES: NS,
      },
    });
    addApps(h, NS, ['web'], { replicas: 2 });
  });
  afterAll(async () => {
    await h?.close();
    await redis?.stop();
  });

  it('starts the run of a directive created meanwhile once Redis is back', async () => {
    await redis.stop();
    h.sim.applyDirective(directive(NS, 'meanwhile', [{ namespace: NS, labels: { app: 'web' } }]));
    // Long enough for the watch to deliver it and the controller to try (and retry) its ingest.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(h.sim.getDirective(NS, 'meanwhile')?.status).toBeUndefined();
    expect(h.sim.deletedPods()).toHaveLength(0);

    await redis.start();
    const done = await waitForState(h, NS, 'meanwhile', 'FINISHED');
    expect(done.status.observedGeneration).toBe(1);
    expect(h.sim.deletedPods()).toHaveLength(2);
  });
});
