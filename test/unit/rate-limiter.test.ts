// The client-side token bucket: BURST requests at once, then QPS a second, in arrival order.
// Fake timers drive the clock, so the test counts tokens instead of measuring time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/kube/rate-limiter.js';

describe('RateLimiter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function takeAll(limiter: RateLimiter, count: number): number[] {
    const served: number[] = [];
    for (let i = 0; i < count; i++) void limiter.take().then(() => served.push(i));
    return served;
  }

  it('serves a burst at once, then one request per 1/QPS, in arrival order', async () => {
    const limiter = new RateLimiter(10, 3);
    const served = takeAll(limiter, 6);
    await vi.advanceTimersByTimeAsync(0);
    expect(served).toEqual([0, 1, 2]);

    await vi.advanceTimersByTimeAsync(99);
    expect(served).toEqual([0, 1, 2]);
    await vi.advanceTimersByTimeAsync(1);
    expect(served).toEqual([0, 1, 2, 3]);
    await vi.advanceTimersByTimeAsync(200);
    expect(served).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refills up to the burst and never beyond it', async () => {
    const limiter = new RateLimiter(10, 2);
    takeAll(limiter, 2);
    await vi.advanceTimersByTimeAsync(0);
    // Ten seconds idle would be 100 tokens; the bucket holds 2.
    await vi.advanceTimersByTimeAsync(10_000);
    const served = takeAll(limiter, 4);
    await vi.advanceTimersByTimeAsync(0);
    expect(served).toEqual([0, 1]);
    await vi.advanceTimersByTimeAsync(100);
    expect(served).toEqual([0, 1, 2]);
  });

  it('over any window sends at most BURST + QPS × seconds', async () => {
    const limiter = new RateLimiter(20, 5);
    const served = takeAll(limiter, 200);
    await vi.advanceTimersByTimeAsync(1000);
    expect(served.length).toBeLessThanOrEqual(5 + 20);
    expect(served.length).toBeGreaterThanOrEqual(5 + 20 - 1);
  });
});
