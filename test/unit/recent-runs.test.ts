import { describe, expect, it } from 'vitest';
import { RecentRuns } from '../../src/queue/recent-runs.js';
import type { Run } from '../../src/queue/runs.js';

function run(generation: number, runKey = '0', uid = 'u1'): Run {
  return { uid, generation, runKey, jobIds: [], acceptedAt: '2026-12-01T00:00:00.000Z' };
}

describe('recent runs', () => {
  it('forgets a run when its accepted marker may be gone', () => {
    let now = 1000;
    const recent = new RecentRuns(8, () => now);
    recent.remember('p', run(1), run(1), 2000);
    expect(recent.recall('p', run(1))).toEqual(run(1));
    expect(recent.recall('q', run(1))).toBeUndefined();
    expect(recent.recall('p', run(2))).toBeUndefined();
    now = 2000;
    expect(recent.recall('p', run(1))).toBeUndefined();
    expect(recent.size).toBe(0);
    recent.remember('p', run(1), run(1), 2000);
    expect(recent.size).toBe(0);
  });

  it("answers with the directive's latest known run, never an earlier one", () => {
    const recent = new RecentRuns(8, () => 0);
    const [first, second] = [run(1, '1000'), run(1, '2000')];
    recent.remember('p', second, second, 10);
    // An older request confirmed after the later one does not take the answer back.
    recent.remember('p', first, first, 10);
    expect(recent.recall('p', first)).toEqual(second);
    expect(recent.recall('p', second)).toEqual(second);
    const third = run(2);
    recent.remember('p', third, third, 10);
    expect(recent.recall('p', first)).toEqual(third);
  });

  it('evicts the least recently used run', () => {
    const recent = new RecentRuns(2, () => 0);
    const [a, b, c] = [run(1, '0', 'a'), run(1, '0', 'b'), run(1, '0', 'c')];
    recent.remember('p', a, a, 10);
    recent.remember('p', b, b, 10);
    expect(recent.recall('p', a)).toEqual(a); // a is now the most recent
    recent.remember('p', c, c, 10);
    expect(recent.recall('p', b)).toBeUndefined();
    expect(recent.recall('p', a)).toEqual(a);
    expect(recent.recall('p', c)).toEqual(c);
  });
});
