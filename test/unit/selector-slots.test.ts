// DESIGN §4 Order: a selector starts only while fewer than K of the run's selectors are in
// progress, and those just begun count until they claim their slot: a barrier done lets hundreds
// go on at once, and K of them start, not all.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { SelectorJobData } from '../../src/queue/selector-job.js';
import { SelectorSlots } from '../../src/workflow/selector-slots.js';
import { REDIS_URL, deletePrefix } from '../support/redis.js';

describe('SelectorSlots on Redis', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = `pbtest-slots-${randomBytes(3).toString('hex')}`;
  const slots = new SelectorSlots(redis, prefix, 60_000);
  afterAll(async () => {
    await deletePrefix(prefix);
    redis.disconnect();
  });

  const job = (index: number): SelectorJobData => ({
    directive: { namespace: 'ns', name: 'd', uid: 'u' },
    generation: 1,
    runKey: '0',
    acceptedAt: '2026-11-29T12:00:00.000Z',
    selectorIndex: index,
    selectorCount: 6,
    selector: { namespace: 'ns', labels: {}, waitForReplicas: 0 },
    order: { limit: 2, barrier: false, after: -1 },
    progress: { step: 'order' },
  });

  it('starts K selectors, counts them until they claim, and lets the next go when one finishes', async () => {
    const answers = [];
    for (let index = 0; index < 5; index += 1) answers.push(await slots.mayStart(job(index)));
    expect(answers).toEqual(['go', 'go', 'room', 'room', 'room']);
    // Asked again (a re-run), a selector begun keeps its place.
    expect(await slots.mayStart(job(1))).toBe('go');
    expect(await slots.claim(job(0))).toBe(true);
    expect(await slots.claim(job(1))).toBe(true);
    expect(await slots.mayStart(job(2))).toBe('room');
    // One done: the lowest parked selector is let go on, and starts.
    const finished = await slots.finish(job(0));
    expect(finished.wake).toEqual([2]);
    expect(await slots.mayStart(job(2))).toBe('go');
    expect(await slots.mayStart(job(3))).toBe('room');
    // Held by its rootCertSync before its first batch, it steps aside: the next may start.
    expect(await slots.stepAside(job(2))).toEqual([3]);
    expect(await slots.mayStart(job(3))).toBe('go');
    expect(await slots.stepAside(job(2))).toEqual([]);
  });
});

describe('SelectorSlots: a selector begun that finds no slot', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = `pbtest-slots2-${randomBytes(3).toString('hex')}`;
  const slots = new SelectorSlots(redis, prefix, 60_000);
  afterAll(async () => {
    await deletePrefix(prefix);
    redis.disconnect();
  });
  const job = (index: number): SelectorJobData => ({
    directive: { namespace: 'ns', name: 'd', uid: 'u2' },
    generation: 1,
    runKey: '0',
    acceptedAt: '2026-11-29T12:00:00.000Z',
    selectorIndex: index,
    selectorCount: 4,
    selector: { namespace: 'ns', labels: {}, waitForReplicas: 0 },
    order: { limit: 2, barrier: false, after: -1 },
    progress: { step: 'order' },
  });

  it('no longer counts as starting, so the next finish lets it go on', async () => {
    expect(await slots.mayStart(job(0))).toBe('go');
    expect(await slots.mayStart(job(1))).toBe('go');
    // 0 stepped aside (its rootCertSync), 2 started in its place, then 0 came back and claimed.
    await slots.stepAside(job(0));
    expect(await slots.mayStart(job(2))).toBe('go');
    expect(await slots.claim(job(0))).toBe(true);
    expect(await slots.claim(job(2))).toBe(true);
    expect(await slots.claim(job(1))).toBe(false);
    // One done: the slot it frees is 1's, which is parked for it, not kept shut by its own mark.
    expect((await slots.finish(job(0))).wake).toEqual([1]);
    expect(await slots.claim(job(1))).toBe(true);
  });
});
