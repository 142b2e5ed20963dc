import type { Redis } from 'ioredis';
import { runSlotsKey } from '../queue/names.js';
import { runOfJob, type SelectorJobData } from '../queue/selector-job.js';
import { withLuaCommands } from '../queue/lua-commands.js';

/**
 * The order of a run whose selectors may be in progress several at once (DESIGN §4 Order), kept
 * in Redis per run, each decision one script:
 *
 * - `done`: the selectors finished; `busy`: those in progress (a slot claimed before the first
 *   batch, given back when done). A selector that fails keeps its slot: its pods may be down.
 * - `start`: a selector may begin once the closest earlier barrier (waitForReplicas > 0) is done;
 *   a barrier once every earlier selector is done. Nothing after a barrier can be done before it,
 *   so "every earlier one" is "as many done as its index".
 * - `claim`: at most `limit` selectors busy at once; a claim is idempotent, so a job re-run after
 *   a crash finds its own slot again.
 * - parked sets: the selectors waiting on a start (`after` by the barrier they wait for, `barrier`
 *   by their index) or a slot (`slot`, by index): `finish` answers the ones it may have freed,
 *   lowest index first (spec order), so that they are promoted at once instead of at their
 *   re-check.
 *
 * Every key expires with the run's retention; they are all under the queue prefix (one Cluster
 * slot with a hash-tagged prefix).
 */
const START = `
local index, after, barrier, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3] == '1', ARGV[4]
local ok
if barrier then
  ok = redis.call('SCARD', KEYS[1]) >= index
elseif after < 0 then
  ok = true
else
  ok = redis.call('SISMEMBER', KEYS[1], after) == 1
end
local parked = barrier and KEYS[3] or KEYS[2]
if ok then
  redis.call('ZREM', parked, index)
  return 1
end
redis.call('ZADD', parked, barrier and index or after, index)
redis.call('PEXPIRE', parked, ttl)
return 0
`;

/* KEYS: busy, slot-parked. ARGV: index, limit, ttl. */
const CLAIM = `
local index, limit, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3]
if redis.call('SISMEMBER', KEYS[1], index) == 1
  or redis.call('SCARD', KEYS[1]) < limit then
  redis.call('SADD', KEYS[1], index)
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('ZREM', KEYS[2], index)
  return 1
end
redis.call('ZADD', KEYS[2], tonumber(index), index)
redis.call('PEXPIRE', KEYS[2], ttl)
return 0
`;

/*
 * KEYS: done, busy, after-parked, barrier-parked, slot-parked. ARGV: index, limit, ttl.
 * Returns the done count, then the parked selectors this may let go on.
 */
const FINISH = `
local index, limit, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3]
redis.call('SADD', KEYS[1], index)
redis.call('SREM', KEYS[2], index)
redis.call('PEXPIRE', KEYS[1], ttl)
local done = redis.call('SCARD', KEYS[1])
local wake = redis.call('ZRANGEBYSCORE', KEYS[3], index, index)
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', done)) do
  table.insert(wake, member)
end
local free = limit - redis.call('SCARD', KEYS[2])
if free > 0 then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[5], 0, free - 1)) do
    table.insert(wake, member)
  end
end
return {done, wake}
`;

interface SlotCommands {
  podBouncerSelectorStart(...args: string[]): Promise<number>;
  podBouncerSelectorClaim(...args: string[]): Promise<number>;
  podBouncerSelectorFinish(...args: string[]): Promise<[number, string[]]>;
}

/** What a selector's end changed: how many of the run's selectors are done, who may go on. */
export interface Finished {
  done: number;
  wake: number[];
}

/** The run order of jobs with `order` data (maxConcurrentSelectors > 1). */
export class SelectorSlots {
  private readonly redis: Redis & SlotCommands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {
    this.redis = withLuaCommands<SlotCommands>(redis, {
      podBouncerSelectorStart: { numberOfKeys: 3, lua: START },
      podBouncerSelectorClaim: { numberOfKeys: 2, lua: CLAIM },
      podBouncerSelectorFinish: { numberOfKeys: 5, lua: FINISH },
    });
  }

  private key(data: SelectorJobData, part: Parameters<typeof runSlotsKey>[2]): string {
    const run = runOfJob(data);
    return runSlotsKey(this.prefix, run, part);
  }

  /** True when the selectors it comes after are done; otherwise it is parked until they are. */
  async mayStart(data: SelectorJobData): Promise<boolean> {
    const order = data.order;
    if (order === undefined) return true;
    const answer = await this.redis.podBouncerSelectorStart(
      this.key(data, 'done'),
      this.key(data, 'after'),
      this.key(data, 'barrier'),
      String(data.selectorIndex),
      String(order.after),
      order.barrier ? '1' : '0',
      String(this.ttlMs),
    );
    return answer === 1;
  }

  /** Takes (or finds again) one of the run's `limit` slots; false: parked until one is free. */
  async claim(data: SelectorJobData): Promise<boolean> {
    const order = data.order;
    if (order === undefined) return true;
    const answer = await this.redis.podBouncerSelectorClaim(
      this.key(data, 'busy'),
      this.key(data, 'slot'),
      String(data.selectorIndex),
      String(order.limit),
      String(this.ttlMs),
    );
    return answer === 1;
  }

  /** Marks the selector done and gives its slot back (idempotent). */
  async finish(data: SelectorJobData): Promise<Finished> {
    const [done, wake] = await this.redis.podBouncerSelectorFinish(
      this.key(data, 'done'),
      this.key(data, 'busy'),
      this.key(data, 'after'),
      this.key(data, 'barrier'),
      this.key(data, 'slot'),
      String(data.selectorIndex),
      String(data.order?.limit ?? 1),
      String(this.ttlMs),
    );
    return { done, wake: wake.map(Number) };
  }

  /** The selectors of the run in progress now, and done: for the status summary. */
  async counts(data: SelectorJobData): Promise<{ done: number; busy: number[] }> {
    const [done, busy] = await Promise.all([
      this.redis.scard(this.key(data, 'done')),
      this.redis.smembers(this.key(data, 'busy')),
    ]);
    return { done, busy: busy.map(Number).sort((a, b) => a - b) };
  }
}
