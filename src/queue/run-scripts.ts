import type { Redis } from 'ioredis';

/*
 * The run scripts work on a whole batch of runs in one call: a call per run costs Redis a script
 * invocation each and the api a command object each, which a batch of events paid many times
 * over. Every key a call touches is under the queue prefix, which carries a hash tag in Redis
 * Cluster (config refuses a cluster without one), so one call never spans slots.
 */

/*
 * KEYS: per run, its latest-run record and its accepted marker. ARGV: claim TTL, retention TTL,
 * then per run: generation, runKey, issuance (1|0), record JSON. Decided in order: a later run of
 * the batch sees what an earlier one claimed. One script, so two api replicas given events at once
 * cannot both decide that the same issuance starts a run.
 */
export const CLAIM = `
local claimTtl, retention = tonumber(ARGV[1]), tonumber(ARGV[2])
local function claim(record, marker, gen, runKey, issuance, json)
  local accepted = redis.call('GET', marker)
  local current = redis.call('GET', record)
  if accepted then return {'duplicate', current or '', accepted, redis.call('PTTL', marker)} end
  if current then
    local rec = cjson.decode(current)
    local g = tonumber(rec.generation)
    if g > gen then return {'duplicate', current, ''} end
    if g == gen and rec.runKey ~= runKey then
      if issuance ~= '1' or tonumber(rec.runKey) > tonumber(runKey) then
        return {'duplicate', current, ''}
      end
    end
  end
  redis.call('SET', marker, 'claimed', 'EX', claimTtl)
  redis.call('SET', record, json, 'EX', retention)
  return {'new', current or '', ''}
end
local replies = {}
for i = 1, #KEYS / 2 do
  local a = 2 + (i - 1) * 4
  replies[i] = claim(KEYS[2 * i - 1], KEYS[2 * i], tonumber(ARGV[a + 1]), ARGV[a + 2], ARGV[a + 3], ARGV[a + 4])
end
return replies
`;

/*
 * KEYS: per run, its record, its marker, then its job keys. ARGV: retention TTL, then per run: the
 * number of its job keys, record JSON, generation, runKey, acceptedAt. Answers per run: -1 when
 * a job of it is not in Redis (BullMQ's addBulk does not report a job script that failed inside
 * its MULTI, so this is where that shows; the run is not confirmed), else it is marked accepted and
 * answers 1 when it is (still) the latest run, 0 when a newer one is. The record is read as JSON
 * only when another run replaced it since the claim.
 */
export const CONFIRM = `
local retention = tonumber(ARGV[1])
local function confirm(k, jobs, json, gen, runKey, acceptedAt)
  for i = k + 2, k + 1 + jobs do
    if redis.call('EXISTS', KEYS[i]) == 0 then return -1 end
  end
  redis.call('SET', KEYS[k + 1], acceptedAt, 'EX', retention)
  local current = redis.call('GET', KEYS[k])
  if current == json then return 1 end
  if current then
    local rec = cjson.decode(current)
    local g = tonumber(rec.generation)
    if g > gen or (g == gen and tonumber(rec.runKey) > tonumber(runKey)) then return 0 end
  end
  redis.call('SET', KEYS[k], json, 'EX', retention)
  return 1
end
local replies, k, a = {}, 1, 2
while a < #ARGV do
  local jobs = tonumber(ARGV[a])
  replies[#replies + 1] = confirm(k, jobs, ARGV[a + 1], tonumber(ARGV[a + 2]), ARGV[a + 3], ARGV[a + 4])
  k = k + 2 + jobs
  a = a + 5
end
return replies
`;

/* KEYS: record, marker. ARGV: our record JSON, the previous record JSON or ''. */
export const RELEASE = `
if redis.call('GET', KEYS[2]) == 'claimed' then redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
end
return 1
`;

/** One run's claim answer: decision, the record it found (or ''), its marker (or ''), marker PTTL. */
export type ClaimReply = [string, string, string, number?];

/** The scripts as ioredis commands: EVALSHA (the script text is sent once per connection). */
export interface RunCommands {
  podBouncerClaimRuns(...args: string[]): Promise<ClaimReply[]>;
  podBouncerConfirmRuns(...args: string[]): Promise<number[]>;
  podBouncerReleaseRun(...args: string[]): Promise<number>;
}

/** `redis` with the run scripts defined on it (once per client). */
export function runCommands(redis: Redis): Redis & RunCommands {
  const client = redis as Redis & Partial<RunCommands>;
  if (client.podBouncerClaimRuns === undefined) {
    // The number of keys goes first: it depends on the batch (and on each run's selectors).
    redis.defineCommand('podBouncerClaimRuns', { lua: CLAIM });
    redis.defineCommand('podBouncerConfirmRuns', { lua: CONFIRM });
    redis.defineCommand('podBouncerReleaseRun', { numberOfKeys: 2, lua: RELEASE });
  }
  return client as Redis & RunCommands;
}
