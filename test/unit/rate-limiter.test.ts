// The client-side token bucket: BURST requests at once, then QPS a second, in arrival order
// within a flow, and flows served in turn. Fake timers drive the clock, so the test counts
// tokens instead of measuring time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/kube/rate-limiter.js';
import { inRequestFlow } from '../../src/kube/request-flow.js';

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

describe('RateLimiter flows', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Queues `count` requests of `flow`; each grant is recorded in `granted` as `flow` + index. */
  function queue(limiter: RateLimiter, flow: string, count: number, granted: string[]): void {
    for (let i = 0; i < count; i++) void limiter.take(flow).then(() => granted.push(`${flow}${i}`));
  }

  it('serves a flow that arrives behind a long queue in turn with it', async () => {
    const limiter = new RateLimiter(10, 1);
    const granted: string[] = [];
    queue(limiter, 'a', 50, granted);
    queue(limiter, 'b', 3, granted);
    await vi.advanceTimersByTimeAsync(1000);
    // In arrival order (one queue for all) b would come after the 50 requests of a.
    expect(granted).toEqual(['a0', 'a1', 'b0', 'a2', 'b1', 'a3', 'b2', 'a4', 'a5', 'a6', 'a7']);
  });

  it('gives each waiting flow an equal share, and the whole rate to a flow left alone', async () => {
    const limiter = new RateLimiter(10, 1);
    const granted: string[] = [];
    queue(limiter, 'a', 40, granted);
    queue(limiter, 'b', 10, granted);
    queue(limiter, 'c', 4, granted);
    const counts = () => ['a', 'b', 'c'].map((f) => granted.filter((g) => g.startsWith(f)).length);
    // The burst's one token to a, then twelve grants in turns: none waits for another to empty.
    await vi.advanceTimersByTimeAsync(1200);
    expect(counts()).toEqual([5, 4, 4]);
    // c is done: a and b share the next twelve.
    await vi.advanceTimersByTimeAsync(1200);
    expect(counts()).toEqual([11, 10, 4]);
    // b is done too: a alone gets the whole rate, 10 a second.
    await vi.advanceTimersByTimeAsync(1000);
    expect(counts()).toEqual([21, 10, 4]);
  });

  it('keeps the total at BURST + QPS × seconds however many flows wait', async () => {
    const limiter = new RateLimiter(20, 5);
    const granted: string[] = [];
    for (let flow = 0; flow < 40; flow++) queue(limiter, `f${flow}-`, 10, granted);
    await vi.advanceTimersByTimeAsync(1000);
    expect(granted.length).toBe(5 + 20);
  });

  it('keeps no state of a flow once its queue is empty', async () => {
    const limiter = new RateLimiter(100, 1);
    const granted: string[] = [];
    for (let flow = 0; flow < 1000; flow++) queue(limiter, `ns-${flow}-`, 1, granted);
    expect(limiter.waitingFlows).toBe(999);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(granted.length).toBe(1000);
    expect(limiter.waitingFlows).toBe(0);
  });

  it('takes the flow from the async context of the caller, across awaits', async () => {
    const limiter = new RateLimiter(10, 1);
    const granted: string[] = [];
    const job = (flow: string, count: number) =>
      inRequestFlow(flow, async () => {
        for (let i = 0; i < count; i++) {
          await limiter.take();
          granted.push(`${flow}${i}`);
        }
      });
    void Promise.all(Array.from({ length: 10 }, () => job('busy', 5)));
    void job('small', 3);
    void limiter.take().then(() => granted.push('default'));
    await vi.advanceTimersByTimeAsync(1000);
    // Ten jobs of one namespace make one flow: after the burst's token, the other namespace's
    // job and a request outside any job (the default flow) are served in turn with it.
    expect(granted.slice(0, 8)).toEqual([
      'busy0',
      'busy0',
      'small0',
      'default',
      'busy0',
      'small1',
      'busy0',
      'small2',
    ]);
  });
});
