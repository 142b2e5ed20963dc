import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { rateLimitKey } from '../../src/ingress/rate-limit.js';
import { commandsDuring } from '../support/redis-monitor.js';

describe('a repeated event', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('dupes');
  });
  afterAll(async () => h.close());

  it('posted 5 times at once deletes each original pod exactly once', async () => {
    h.sim.addWorkload({
      namespace: 'istio-system',
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 3,
      readinessDelayMs: 200,
    });
    const originals = h.sim.listPods('istio-system', { app: 'istiod' }).map((p) => p.metadata.uid);
    h.sim.applyDirective(
      directive('istio-system', 'dupes', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 3 },
      ]),
    );

    // One issuance: a later issuedAt would be a new run (the second round of a rotation).
    const issuedAt = new Date().toISOString();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.post({ directive: { namespace: 'istio-system', name: 'dupes' }, issuedAt }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(1);
    expect(answers.filter((a) => a.body.duplicate === true).length).toBeGreaterThanOrEqual(1);
    expect(new Set(answers.map((a) => a.body.jobIds.join()))).toHaveProperty('size', 1);

    await waitForState(h, 'istio-system', 'dupes', 'FINISHED');
    const deletions = h.sim.deletionsByUid();
    const requests = h.sim.deleteRequestsByUid();
    for (const uid of originals) {
      expect(deletions.get(uid)).toBe(1);
      expect(requests.get(uid)).toBe(1);
    }
    expect([...requests.keys()].sort()).toEqual([...originals].sort());

    // Even after FINISHED, the same generation is a duplicate and enqueues nothing.
    const again = await h.post({ directive: { namespace: 'istio-system', name: 'dupes' } });
    expect(again.body.duplicate).toBe(true);
    expect(await h.serve.queue.getJobCounts()).toMatchObject({
      completed: 1,
      waiting: 0,
      delayed: 0,
      active: 0,
    });
  });

  it("answers the repeats of a run this process accepted with no Redis command but the sender's rate count", async () => {
    h.sim.addWorkload({
      namespace: 'istio-system',
      name: 'gateway',
      kind: 'ReplicaSet',
      labels: { app: 'gateway' },
      replicas: 1,
    });
    h.sim.applyDirective(
      directive('istio-system', 'recalled', [
        { namespace: 'istio-system', labels: { app: 'gateway' }, waitForReplicas: 1 },
      ]),
    );
    const event = {
      directive: { namespace: 'istio-system', name: 'recalled' },
      issuedAt: new Date().toISOString(),
    };
    const first = await commandsDuring(h, async () => {
      expect((await h.post(event)).body.duplicate).toBe(false);
    });
    // The first answer asked Redis (the claim, the jobs, the confirmation).
    expect(first.length).toBeGreaterThan(0);
    const answers: any[] = [];
    const repeats = await commandsDuring(h, async () => {
      for (let i = 0; i < 3; i += 1) answers.push((await h.post(event)).body);
    });
    // Each request is counted against its credential's RATE_LIMIT_PER_MINUTE, in Redis so that
    // every replica counts it; the repeats need nothing else there.
    const counted = (args: string[]) =>
      args[0]?.toLowerCase() === 'evalsha' && args[3] === rateLimitKey(h.prefix, 'token0');
    expect(repeats.filter(counted)).toHaveLength(3);
    expect(repeats.filter((args) => !counted(args))).toEqual([]);
    for (const answer of answers) {
      expect(answer).toMatchObject({ duplicate: true, generation: 1, selectors: 1 });
      expect(Date.parse(answer.issuedAt)).toBe(Date.parse(event.issuedAt));
    }
    // A later issuance is a new run: it goes to Redis.
    const later = { ...event, issuedAt: new Date(Date.now() + 1000).toISOString() };
    const next = await commandsDuring(h, async () => {
      expect((await h.post(later)).body.duplicate).toBe(false);
    });
    expect(next.length).toBeGreaterThan(0);
    await waitForState(h, 'istio-system', 'recalled', 'FINISHED');
  });
});
