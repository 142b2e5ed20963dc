// What a run is (src/queue/run-identity.ts): one ordering of runs, which the Lua run scripts take
// as `LUA_RUN_ORDER`; here both are run over the same generated runs, the Lua through Redis's EVAL.
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { abortKey, selectorJobId } from '../../src/queue/names.js';
import {
  LUA_RUN_ORDER,
  compareRuns,
  describesRun,
  holdsRunsSpec,
  isLaterRun,
  isSameRun,
  runKeyOf,
  runMoment,
  tellSameRun,
  toldRunKey,
} from '../../src/queue/run-identity.js';
import { REDIS_URL } from '../support/redis.js';

/** Answers, for each pair (a, b) of ARGV, 1 when `a` is later, else 0; then 1 when the same run. */
const PAIRS = `${LUA_RUN_ORDER}
local out = {}
for i = 1, #ARGV, 4 do
  out[#out + 1] = later(tonumber(ARGV[i]), ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3]) and 1 or 0
  out[#out + 1] = sameRun(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]) and 1 or 0
end
return out
`;

/** A run as a directive has them: a few generations, no issuance or one near now, often repeated. */
const run = fc.record({
  generation: fc.integer({ min: 1, max: 4 }),
  runKey: fc.oneof(
    fc.constant('0'),
    fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_005 }).map(String),
    fc.date({ min: new Date(0), max: new Date(8.64e15), noInvalidDate: true }).map(runKeyOf),
  ),
});

describe('run identity', () => {
  const redis = new Redis(REDIS_URL);
  afterAll(() => redis.disconnect());

  it('the Lua scripts order runs as the TypeScript does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(run, run), { minLength: 1, maxLength: 50 }),
        async (pairs) => {
          const args = pairs.flatMap(([a, b]) => [a.generation, a.runKey, b.generation, b.runKey]);
          const lua = (await redis.eval(PAIRS, 0, ...args.map(String))) as number[];
          const ts = pairs.flatMap(([a, b]) => [isLaterRun(a, b), isSameRun(a, b)]);
          expect(lua).toEqual(ts.map((answer) => (answer ? 1 : 0)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('is one total order: generation first, then issuance', () => {
    fc.assert(
      fc.property(run, run, (a, b) => {
        expect(Math.sign(compareRuns(a, b)) + Math.sign(compareRuns(b, a))).toBe(0);
        if (a.generation !== b.generation)
          expect(isLaterRun(a, b)).toBe(a.generation > b.generation);
      }),
    );
  });

  it('names a run once for job ids and abort keys', () => {
    const key = runKeyOf('2026-12-01T00:00:00.000Z');
    expect(key).toBe('1796083200000');
    expect(runKeyOf(undefined)).toBe('0');
    expect(selectorJobId('u1', 3, key, 2)).toBe('u1.g3.r1796083200000.s2');
    expect(abortKey('p', 'u1', 3, key)).toBe('p:bounce:abort:u1.g3.r1796083200000');
  });

  it('says when a status tells a run, and which moment a run stands for', () => {
    const status = { observedGeneration: 3, issuedAt: '2026-12-01T00:00:00.000Z' };
    expect(describesRun(status, { generation: 3 })).toBe(true);
    expect(describesRun(status, { generation: 3, issuedAt: status.issuedAt })).toBe(true);
    expect(describesRun(status, { generation: 3, issuedAt: '2026-12-02T00:00:00.000Z' })).toBe(
      false,
    );
    expect(describesRun(status, { generation: 4 })).toBe(false);
    expect(describesRun(undefined, { generation: 3 })).toBe(false);
    expect(tellSameRun(status, { ...status })).toBe(true);
    expect(tellSameRun(status, { observedGeneration: 3 })).toBe(false);
    expect(tellSameRun({ observedGeneration: 3, issuedAt: null }, { observedGeneration: 3 })).toBe(
      true,
    );
    expect(runMoment({ acceptedAt: 'a' })).toBe('a');
    expect(runMoment({ issuedAt: 'i', acceptedAt: 'a' })).toBe('i');
  });

  it('orders a status only by an issuance it tells as a real instant', () => {
    expect(toldRunKey({ issuedAt: '2026-12-01T00:00:00Z' })).toBe('1796083200000');
    for (const issuedAt of [undefined, null, '', 'tomorrow']) {
      expect(toldRunKey({ issuedAt })).toBeUndefined();
    }
  });

  it("says when a directive as read still holds a run's spec", () => {
    const directive = { metadata: { uid: 'u1', generation: 3 } };
    expect(holdsRunsSpec(directive, { uid: 'u1', generation: 3 })).toBe(true);
    expect(holdsRunsSpec(directive, { uid: 'u1', generation: 2 })).toBe(false);
    expect(holdsRunsSpec(directive, { uid: 'u2', generation: 3 })).toBe(false);
  });
});
