// The selector jobs' backoff between attempts after a transient failure (DESIGN §4): 1 s doubling,
// capped at 30 s, jittered between half the ceiling and all of it.
import { describe, expect, it } from 'vitest';
import { SELECTOR_BACKOFF, selectorBackoff } from '../../src/queue/selector-backoff.js';
import { selectorJobOptions } from '../../src/queue/enqueue.js';

const ceilings = [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000];

describe('selector backoff', () => {
  it('doubles from 1 s with each attempt up to a 30 s ceiling', () => {
    ceilings.forEach((ceiling, index) => {
      expect(selectorBackoff(index + 1, () => 1)).toBe(ceiling);
    });
    expect(selectorBackoff(100, () => 1)).toBe(30_000);
  });

  it('never waits less than half the ceiling nor more than all of it', () => {
    ceilings.forEach((ceiling, index) => {
      expect(selectorBackoff(index + 1, () => 0)).toBe(ceiling / 2);
      for (let i = 0; i < 200; i++) {
        const delay = selectorBackoff(index + 1);
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
        expect(Number.isInteger(delay)).toBe(true);
      }
    });
  });

  it('spreads jobs that failed together over the window', () => {
    const delays = new Set(Array.from({ length: 50 }, () => selectorBackoff(6)));
    expect(delays.size).toBeGreaterThan(10);
  });

  it("is the selector jobs' backoff type, which is none of BullMQ's built-in ones", () => {
    expect(selectorJobOptions(60).backoff).toEqual({ type: SELECTOR_BACKOFF });
    expect(['fixed', 'exponential']).not.toContain(SELECTOR_BACKOFF);
  });
});
