// The arithmetic of a selector's pods down against their owners' scale (owners-down.ts).
import { describe, expect, it } from 'vitest';
import { ownerDown, shortOf } from '../../src/workflow/owners-down.js';

describe("pods down against their owner's scale", () => {
  it('counts what the owner misses beyond what it missed before the first batch', () => {
    // 8 wanted, one crash-looping before the first batch: it never holds a batch.
    expect(ownerDown({ want: 8, healthy: 7, short: 1, chosenDown: 1 })).toBe(0);
    // One bounced, not replaced yet.
    expect(ownerDown({ want: 8, healthy: 6, short: 1, chosenDown: 1 })).toBe(1);
  });

  it("a scale-up's pods are wanted before they are Ready", () => {
    // 8 → 14 just after the first eviction: 6 new pods Ready, the replacement not yet.
    expect(ownerDown({ want: 14, healthy: 13, short: 0, chosenDown: 1 })).toBe(1);
    expect(ownerDown({ want: 14, healthy: 14, short: 0, chosenDown: 1 })).toBe(0);
  });

  it("counts at most the owner's chosen pods down: others' disruptions are not waited for", () => {
    expect(ownerDown({ want: 8, healthy: 4, short: 0, chosenDown: 1 })).toBe(1);
  });

  it('a scale-down not carried out before the first batch offsets nothing and holds nothing', () => {
    // Scaled 8 → 6 while its 8 pods were all Ready: nothing missed, not -2 (which would have the
    // selector wait, once the surplus is gone, for 2 pods the owner will never make).
    const short = shortOf(6, 8);
    expect(short).toBe(0);
    // Once the surplus is gone, one bounced and replaced: nothing down.
    expect(ownerDown({ want: 6, healthy: 6, short, chosenDown: 1 })).toBe(0);
  });
});
