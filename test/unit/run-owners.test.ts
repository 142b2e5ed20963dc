// A run's own replacements: the owners it bounced a pod of, kept in the real Redis, and the rule
// that tells their replacements from pods the run did not cause.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';

import type { PodInfo } from '../../src/kube/pods.js';
import type { SelectorJobData } from '../../src/queue/selector-job.js';
import { isOwnReplacement } from '../../src/workflow/others-down.js';
import { SentPods } from '../../src/workflow/sent-pods.js';
import { deletePrefix, REDIS_URL } from '../support/redis.js';

const SECOND = 1_000_000_000_000;
const reviews = { kind: 'ReplicaSet', name: 'reviews-7f9' };

const pod = (uid: string, created: number, owner?: PodInfo['owner']): PodInfo => ({
  name: uid,
  uid,
  createdAt: new Date(created),
  ready: true,
  terminating: false,
  controlled: owner !== undefined,
  ...(owner === undefined ? {} : { owner }),
});

function job(
  runKey: string,
  selectorIndex: number,
  labels: Record<string, string>,
): SelectorJobData {
  return {
    directive: { namespace: 'istio-system', name: 'mesh-certs', uid: 'u-1' },
    generation: 1,
    runKey,
    acceptedAt: '2026-11-29T12:00:00.000Z',
    selectorIndex,
    selectorCount: 2,
    selector: { namespace: 'bookinfo', labels, waitForReplicas: 1 },
    progress: { step: 'bounce' },
  };
}

describe("a run's own replacements", () => {
  const first = new Map([[`bookinfo/ReplicaSet/reviews-7f9`, SECOND]]);

  it('are the pods of an owner it bounced, created in or after the second of that bounce', () => {
    expect(isOwnReplacement(pod('a', SECOND + 300, reviews), 'bookinfo', first)).toBe(true);
    expect(isOwnReplacement(pod('b', SECOND, reviews), 'bookinfo', first)).toBe(true);
  });

  it('are not older pods, pods of owners it did not touch, nor bare pods: when in doubt, bounce', () => {
    expect(isOwnReplacement(pod('c', SECOND - 1000, reviews), 'bookinfo', first)).toBe(false);
    const other = { kind: 'ReplicaSet', name: 'ratings-5c8' };
    expect(isOwnReplacement(pod('d', SECOND + 300, other), 'bookinfo', first)).toBe(false);
    expect(isOwnReplacement(pod('e', SECOND + 300, reviews), 'apps', first)).toBe(false);
    expect(isOwnReplacement(pod('f', SECOND + 300), 'bookinfo', first)).toBe(false);
  });
});

describe("a run's owners in Redis", () => {
  const prefix = `pbtest-run-owners-${randomBytes(3).toString('hex')}`;
  const redis = new Redis(REDIS_URL);
  const sent = new SentPods(redis, prefix, 60_000, 3_600_000);
  afterAll(async () => {
    await deletePrefix(prefix);
    redis.disconnect();
  });

  it("keep the first second per owner, across the run's selectors, apart from other runs", async () => {
    const chosen = { name: 'reviews-1', uid: 'p-1', owner: reviews };
    const now = Date.now();
    await sent.record(job('0', 1, { app: 'reviews', tier: 'x' }), [chosen], { now: now + 2000 });
    await sent.record(job('0', 0, { app: 'reviews' }), [{ ...chosen, uid: 'p-2' }], { now });
    await sent.record(job('0', 0, { app: 'reviews' }), [{ name: 'bare', uid: 'p-3' }], { now });
    const own = await sent.firstBounces(job('0', 1, { app: 'reviews', tier: 'x' }));
    expect([...own]).toEqual([['bookinfo/ReplicaSet/reviews-7f9', Math.floor(now / 1000) * 1000]]);
    expect((await sent.firstBounces(job('42', 0, { app: 'reviews' }))).size).toBe(0);
  });
});
