import { describe, expect, it } from 'vitest';
import { resolveMaxUnavailable, parseMaxUnavailable } from '../../src/directive/max-unavailable.js';
import { planBatches, replacementsWanted } from '../../src/workflow/batches.js';

const sts = (ordinal: number) => ({
  name: `db-${ordinal}`,
  uid: `u${ordinal}`,
  owner: { kind: 'StatefulSet', name: 'db' },
});

describe('batch plan', () => {
  it('resolves maxUnavailable: counts, percentages rounded down, at least 1', () => {
    expect(resolveMaxUnavailable({ count: 2 }, 10)).toBe(2);
    expect(resolveMaxUnavailable({ percent: 25 }, 10)).toBe(2);
    expect(resolveMaxUnavailable({ percent: 25 }, 3)).toBe(1);
    expect(resolveMaxUnavailable({ percent: 100 }, 7)).toBe(7);
    expect(parseMaxUnavailable('0%')).toBeUndefined();
    expect(parseMaxUnavailable(0)).toBeUndefined();
    expect(parseMaxUnavailable('101%')).toBeUndefined();
    expect(parseMaxUnavailable('50%')).toEqual({ percent: 50 });
  });

  it('orders StatefulSet pods by descending ordinal and cuts batches', () => {
    const chosen = [sts(0), sts(1), { name: 'bare', uid: 'b' }, sts(2), sts(3)];
    const plan = planBatches(chosen, 2).map((batch) => batch.map((pod) => pod.name));
    expect(plan).toEqual([['db-3', 'db-2'], ['bare', 'db-1'], ['db-0']]);
    expect(planBatches(chosen, 5)).toHaveLength(1);
  });

  it('waits for the replacements of owned pods only, less the next batch slack', () => {
    const chosen = [sts(0), sts(1), sts(2), { name: 'bare', uid: 'b' }];
    expect(replacementsWanted(chosen, new Set(['u0', 'u1']), 2, 2)).toBe(2);
    expect(replacementsWanted(chosen, new Set(['u0', 'u1']), 2, 1)).toBe(1);
    expect(replacementsWanted(chosen, new Set(['b']), 1, 1)).toBe(0);
  });

  it('owes no replacement for a pod that was not Ready when chosen', () => {
    const chosen = [{ ...sts(0), unready: true as const }, sts(1), sts(2)];
    expect(replacementsWanted(chosen, new Set(['u0']), 1, 1)).toBe(0);
    expect(replacementsWanted(chosen, new Set(['u0', 'u1']), 1, 1)).toBe(1);
  });
});
