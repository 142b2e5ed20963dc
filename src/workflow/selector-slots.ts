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
 *   so "every earlier one" is "as many done as its index". It also begins only while fewer than
 *   `limit` are busy or *starting* (begun in the last STARTING_MS, no slot claimed yet): a barrier
 *   done lets hundreds of selectors go on at once, and had they all listed and recorded their
 *   pods then, the worker's queue would hold the batches of those in progress behind them. A
 *   starting mark is no slot: it goes with the claim, the finish, or a wait before the first
 *   batch (`stepAside`: a selector held by its rootCertSync or a gate lets another start), and
 *   lapses after STARTING_MS whatever happens.
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
/*
 * KEYS: done, after-parked, barrier-parked, busy, slot-parked, starting.
 * ARGV: index, after, barrier, ttl, limit, starting ms.
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
if not ok then
  redis.call('ZADD', parked, barrier and index or after, index)
  redis.call('PEXPIRE', parked, ttl)
  return 0
end
redis.call('ZREM', parked, index)
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - tonumber(ARGV[6]))
local mine = redis.call('SISMEMBER', KEYS[4], index) == 1 or redis.call('ZSCORE', KEYS[6], index)
local room = redis.call('SCARD', KEYS[4]) + redis.call('ZCARD', KEYS[6]) < tonumber(ARGV[5])
if not mine and not room then
  redis.call('ZADD', KEYS[5], index, index)
  redis.call('PEXPIRE', KEYS[5], ttl)
  return 2
end
redis.call('ZREM', KEYS[5], index)
if redis.call('SISMEMBER', KEYS[4], index) == 0 then
  redis.call('ZADD', KEYS[6], now, index)
  redis.call('PEXPIRE', KEYS[6], ttl)
end
return 1
`;

/** How long a selector begun counts against the limit before it claims a slot (see START). */
const STARTING_MS = 30_000;

/* KEYS: busy, slot-parked, starting. ARGV: index, limit, ttl. */
const CLAIM = `
local index, limit, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3]
if redis.call('SISMEMBER', KEYS[1], index) == 1
  or redis.call('SCARD', KEYS[1]) < limit then
  redis.call('SADD', KEYS[1], index)
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('ZREM', KEYS[2], index)
  redis.call('ZREM', KEYS[3], index)
  return 1
end
-- Parked for a slot, it is no longer starting: its mark would keep the slots it waits for shut.
redis.call('ZREM', KEYS[3], index)
redis.call('ZADD', KEYS[2], tonumber(index), index)
redis.call('PEXPIRE', KEYS[2], ttl)
return 0
`;

/*
 * KEYS: done, busy, after-parked, barrier-parked, slot-parked, starting. ARGV: index, limit, ttl.
 * Returns the done count, then the parked selectors this may let go on.
 */
const FINISH = `
local index, limit, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3]
redis.call('SADD', KEYS[1], index)
redis.call('SREM', KEYS[2], index)
redis.call('ZREM', KEYS[6], index)
redis.call('PEXPIRE', KEYS[1], ttl)
local done = redis.call('SCARD', KEYS[1])
local wake = redis.call('ZRANGEBYSCORE', KEYS[3], index, index)
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', done)) do
  table.insert(wake, member)
end
local free = limit - redis.call('SCARD', KEYS[2]) - redis.call('ZCARD', KEYS[6])
if free > 0 then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[5], 0, free - 1)) do
    table.insert(wake, member)
  end
end
return {done, wake}
`;

/*
 * KEYS: busy, slot-parked, starting. ARGV: index, limit.
 * A selector begun that waits (rootCertSync, a gate) before its first batch gives its starting
 * mark back; returns the parked selectors that may start in its place.
 */
const STEP_ASIDE = `
if redis.call('ZREM', KEYS[3], ARGV[1]) == 0 then return {} end
local free = tonumber(ARGV[2]) - redis.call('SCARD', KEYS[1]) - redis.call('ZCARD', KEYS[3])
if free <= 0 then return {} end
return redis.call('ZRANGE', KEYS[2], 0, free - 1)
`;

interface SlotCommands {
  podBouncerSelectorStepAside(...args: string[]): Promise<string[]>;
  podBouncerSelectorStart(...args: string[]): Promise<number>;
  podBouncerSelectorClaim(...args: string[]): Promise<number>;
  podBouncerSelectorFinish(...args: string[]): Promise<[number, string[]]>;
}

/** What a selector's end changed: how many of the run's selectors are done, who may go on. */
export interface Finished {
  done: number;
  wake: number[];
}

/** The slot scripts, by the command names `SlotCommands` calls them by. */
const SLOT_SCRIPTS = {
  podBouncerSelectorStart: { numberOfKeys: 6, lua: START },
  podBouncerSelectorClaim: { numberOfKeys: 3, lua: CLAIM },
  podBouncerSelectorFinish: { numberOfKeys: 6, lua: FINISH },
  podBouncerSelectorStepAside: { numberOfKeys: 3, lua: STEP_ASIDE },
};

/** The run order of jobs with `order` data (maxConcurrentSelectors > 1). */
export class SelectorSlots {
  private readonly redis: Redis & SlotCommands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {
    this.redis = withLuaCommands<SlotCommands>(redis, SLOT_SCRIPTS);
  }

  /** The run's keys of `parts`, in the order a script's KEYS take them. */
  private keys(data: SelectorJobData, ...parts: Parameters<typeof runSlotsKey>[2][]): string[] {
    const run = runOfJob(data);
    return parts.map((part) => runSlotsKey(this.prefix, run, part));
  }

  /**
   * True when the selectors it comes after are done and fewer than `limit` are busy or starting;
   * otherwise it is parked until they are.
   */
  async mayStart(data: SelectorJobData): Promise<'go' | 'after' | 'room'> {
    const order = data.order;
    if (order === undefined) return 'go';
    const answer = await this.redis.podBouncerSelectorStart(
      ...this.keys(data, 'done', 'after', 'barrier', 'busy', 'slot', 'starting'),
      String(data.selectorIndex),
      String(order.after),
      order.barrier ? '1' : '0',
      String(this.ttlMs),
      String(order.limit),
      String(STARTING_MS),
    );
    return answer === 1 ? 'go' : answer === 2 ? 'room' : 'after';
  }

  /** Takes (or finds again) one of the run's `limit` slots; false: parked until one is free. */
  async claim(data: SelectorJobData): Promise<boolean> {
    const order = data.order;
    if (order === undefined) return true;
    const answer = await this.redis.podBouncerSelectorClaim(
      ...this.keys(data, 'busy', 'slot', 'starting'),
      String(data.selectorIndex),
      String(order.limit),
      String(this.ttlMs),
    );
    return answer === 1;
  }

  /** Marks the selector done and gives its slot back (idempotent). */
  async finish(data: SelectorJobData): Promise<Finished> {
    const [done, wake] = await this.redis.podBouncerSelectorFinish(
      ...this.keys(data, 'done', 'busy', 'after', 'barrier', 'slot', 'starting'),
      String(data.selectorIndex),
      String(data.order?.limit ?? 1),
      String(this.ttlMs),
    );
    return { done, wake: wake.map(Number) };
  }

  /**
   * A selector begun that must wait before its first batch no longer counts as starting: the
   * parked selectors that may start in its place (lowest index first).
   */
  async stepAside(data: SelectorJobData): Promise<number[]> {
    const wake = await this.redis.podBouncerSelectorStepAside(
      ...this.keys(data, 'busy', 'slot', 'starting'),
      String(data.selectorIndex),
      String(data.order?.limit ?? 1),
    );
    return wake.map(Number);
  }

  /** The selectors of the run in progress now, and done: for the status summary. */
  async counts(data: SelectorJobData): Promise<{ done: number; busy: number[] }> {
    const [doneKey, busyKey] = this.keys(data, 'done', 'busy');
    const [done, busy] = await Promise.all([
      this.redis.scard(doneKey!),
      this.redis.smembers(busyKey!),
    ]);
    return { done, busy: busy.map(Number).sort((a, b) => a - b) };
  }
}
