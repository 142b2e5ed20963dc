import type { Redis } from 'ioredis';
import { withLuaCommands } from './lua-commands.js';
import { LUA_TURNS } from './namespace-turns.js';
import { LUA_RUN_ORDER } from './run-identity.js';

/*
 * The run scripts work on a whole batch of runs in one call: a call per run costs Redis a script
 * invocation each and the api a command object each, which a batch of events paid many times
 * over. Every key a call touches is under the queue prefix, which carries a hash tag in Redis
 * Cluster (config refuses a cluster without one), so one call never spans slots.
 */

/*
 * KEYS: per run, its latest-run record, its accepted marker, its sent key (`names.ts`: of its
 * issuedAt as sent, written only when that differs from the runKey), its directive's run budget
 * and its directive namespace's turns (`namespace-turns.ts`). ARGV: claim TTL, retention TTL, now
 * (ms), MAX_RUNS_PER_HOUR, then per run: generation, runKey, issuance (1|0), record JSON, its
 * budget member (`runBudgetMember`), the jobs it queues at once. A new run answers the turn of
 * the first of them, which it takes with the claim. Runs are ordered by
 * `later` and `sameRun` (`LUA_RUN_ORDER`, `run-identity.ts`). A new run past the budget is
 * answered `too_many` with the ms until one more is allowed, and claims nothing; duplicates never
 * count. Decided in order: a later run of the batch sees what an earlier one claimed. One script, so two api replicas given events at
 * once cannot both decide that the same issuance starts a run.
 *
 * An event is a duplicate when its run's marker exists, or when an event with the same issuedAt
 * as sent was ahead of the clock and started a run: that run's marker then answers (its state and
 * runKey are in the reply, for the caller to re-add that run's jobs while it is being claimed).
 */
/*
 * The run budget (MAX_RUNS_PER_HOUR), written once for CLAIM and BUDGET_WAIT: a sorted set of the
 * runs accepted in the past hour, scored by when; full, it answers the ms until its oldest lapses.
 */
const LUA_BUDGET = `
local HOUR = 3600000
local function budgetWait(key, now, budget)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - HOUR)
  if redis.call('ZCARD', key) < budget then return nil end
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + HOUR - now
end
`;

export const CLAIM = `${LUA_RUN_ORDER}${LUA_BUDGET}${LUA_TURNS}
local claimTtl, retention = tonumber(ARGV[1]), tonumber(ARGV[2])
local now, budget = tonumber(ARGV[3]), tonumber(ARGV[4])
local function withinBudget(key, member)
  local wait = budgetWait(key, now, budget)
  if wait then return wait end
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, HOUR)
  return nil
end
local function seen(marker, sent, runKey)
  local accepted = redis.call('GET', marker)
  if accepted then return accepted, marker, runKey end
  local target = redis.call('GET', sent)
  if not target then return nil end
  local other = string.sub(marker, 1, #marker - #runKey) .. target
  accepted = redis.call('GET', other)
  if accepted then return accepted, other, target end
  return nil
end
local function claim(record, marker, sent, runs, turns, gen, runKey, issuance, json, member, queued)
  local current = redis.call('GET', record)
  local accepted, key, target = seen(marker, sent, runKey)
  if accepted then
    return {'duplicate', current or '', accepted, redis.call('PTTL', key), target}
  end
  if current then
    local rec = cjson.decode(current)
    local g = tonumber(rec.generation)
    if later(g, rec.runKey, gen, runKey) then return {'duplicate', current, ''} end
    -- Object shapes name no issuance: any other run of the generation covers them.
    if g == gen and not sameRun(g, rec.runKey, gen, runKey) and issuance ~= '1' then
      return {'duplicate', current, ''}
    end
  end
  local wait = withinBudget(runs, member)
  if wait then return {'too_many', current or '', '', wait} end
  redis.call('SET', marker, 'claimed', 'EX', claimTtl)
  if string.sub(sent, -#runKey - 1) ~= ':' .. runKey then
    redis.call('SET', sent, runKey, 'EX', claimTtl)
  end
  redis.call('SET', record, json, 'EX', retention)
  return {'new', current or '', '', takeTurns(turns, tonumber(queued))}
end
local replies = {}
for i = 1, #KEYS / 5 do
  local k, a = 5 * (i - 1), 4 + (i - 1) * 6
  replies[i] = claim(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5], tonumber(ARGV[a + 1]), ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6])
end
return replies
`;

/*
 * KEYS: per run, its record, its marker, its sent key (as for CLAIM), its directive's run index
 * (`names.ts`), then its job keys. ARGV: retention TTL, then per run: the number of its job keys,
 * record JSON, generation, runKey, acceptedAt. Answers per run: -1 when a job of it is not in
 * Redis (BullMQ's addBulk does not report a job script that failed inside its MULTI, so this is
 * where that shows; the run is not confirmed), else it is marked accepted (its sent key kept as
 * long, and the run listed in the index as `generation:runKey:jobs:sentRunKey`, for the reclaim of
 * a deleted directive) and answers 1 when it is (still) the latest run, 0 when a newer one is.
 * The record is read as JSON only when another run replaced it since the claim.
 */
export const CONFIRM = `${LUA_RUN_ORDER}
local retention = tonumber(ARGV[1])
local function confirm(k, jobs, json, gen, runKey, acceptedAt)
  for i = k + 4, k + 3 + jobs do
    if redis.call('EXISTS', KEYS[i]) == 0 then return -1 end
  end
  redis.call('SET', KEYS[k + 1], acceptedAt, 'EX', retention)
  if string.sub(KEYS[k + 2], -#runKey - 1) ~= ':' .. runKey then
    redis.call('SET', KEYS[k + 2], runKey, 'EX', retention)
  end
  local sent = string.match(KEYS[k + 2], ':([^:]*)$')
  redis.call('SADD', KEYS[k + 3], gen .. ':' .. runKey .. ':' .. jobs .. ':' .. sent)
  redis.call('EXPIRE', KEYS[k + 3], retention)
  local current = redis.call('GET', KEYS[k])
  if current == json then return 1 end
  if current then
    local rec = cjson.decode(current)
    if later(tonumber(rec.generation), rec.runKey, gen, runKey) then return 0 end
  end
  redis.call('SET', KEYS[k], json, 'EX', retention)
  return 1
end
local replies, k, a = {}, 1, 2
while a < #ARGV do
  local jobs = tonumber(ARGV[a])
  replies[#replies + 1] = confirm(k, jobs, ARGV[a + 1], tonumber(ARGV[a + 2]), ARGV[a + 3], ARGV[a + 4])
  k = k + 4 + jobs
  a = a + 5
end
return replies
`;

/*
 * KEYS: a directive's run budget. ARGV: now (ms), MAX_RUNS_PER_HOUR. Answers the ms until one
 * more run is allowed, or -1 while one is: what CLAIM would decide for a new run now.
 */
export const BUDGET_WAIT = `${LUA_BUDGET}
return budgetWait(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])) or -1
`;

/*
 * KEYS: record, marker, sent key. ARGV: our record JSON, the previous record JSON or '', our
 * runKey. A run already confirmed keeps its marker and sent key.
 */
export const RELEASE = `
if redis.call('GET', KEYS[2]) == 'claimed' then
  redis.call('DEL', KEYS[2])
  if redis.call('GET', KEYS[3]) == ARGV[3] then redis.call('DEL', KEYS[3]) end
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
end
return 1
`;

/**
 * One run's claim answer: decision, the record it found (or ''), the marker that answered (or ''),
 * its PTTL (`too_many`: the ms to wait; `new`: its first job's turn), and the runKey of the run it
 * belongs to.
 */
export type ClaimReply = [string, string, string, number?, string?];

/** The scripts as ioredis commands: EVALSHA (the script text is sent once per connection). */
export interface RunCommands {
  podBouncerClaimRuns(...args: string[]): Promise<ClaimReply[]>;
  podBouncerConfirmRuns(...args: string[]): Promise<number[]>;
  podBouncerReleaseRun(...args: string[]): Promise<number>;
  podBouncerBudgetWait(key: string, now: string, perHour: string): Promise<number>;
}

/** `redis` with the run scripts defined on it (once per client). */
export function runCommands(redis: Redis): Redis & RunCommands {
  return withLuaCommands<RunCommands>(redis, {
    // The number of keys goes first: it depends on the batch (and on each run's selectors).
    podBouncerClaimRuns: { lua: CLAIM },
    podBouncerConfirmRuns: { lua: CONFIRM },
    podBouncerReleaseRun: { numberOfKeys: 3, lua: RELEASE },
    podBouncerBudgetWait: { numberOfKeys: 1, lua: BUDGET_WAIT },
  });
}
