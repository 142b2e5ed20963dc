import type { Redis } from 'ioredis';
import { QUEUE_NAME } from '../queue/names.js';
import { inRedis } from '../queue/durable.js';
import { withLuaCommands } from '../queue/lua-commands.js';
import { CloudEventIdsBudgetError } from './errors.js';
import { CLAIM_TTL_SECONDS } from './remembered-answer.js';

/** How long a CloudEvent's (source, id) is remembered (DESIGN §2), counted from its claim. */
export const DAY_SECONDS = 24 * 3600;
const BUCKET_SECONDS = 3600;
/**
 * A remembered id lives 24 h from its claim, so the ids alive at any moment were claimed in the
 * current hour or the 24 before it: counting those 25 hours bounds them all by the budget.
 */
const BUCKETS = DAY_SECONDS / BUCKET_SECONDS + 1;

/**
 * Claims a CloudEvent's key within its sender's budget of new ids, in one round trip: the ids a
 * credential made Redis remember, counted per hour in a hash of the credential's. An id already
 * stored is left to the caller (a repeat, or a 409) whatever the budget; a new one over the
 * budget claims and counts nothing.
 *
 * KEYS: the id's key, the credential's counts. ARGV: the claim, its TTL, the budget, the bucket
 * length (s), the buckets counted. Answers {1} for an id stored already, {0, seconds until one
 * more is allowed} over the budget, else {2, the claim's second, its bucket}.
 */
const CLAIM_WITHIN_BUDGET = `
if redis.call('EXISTS', KEYS[1]) == 1 then return {1} end
local now = tonumber(redis.call('TIME')[1])
local size = tonumber(ARGV[4])
local buckets = tonumber(ARGV[5])
local bucket = math.floor(now / size)
local counts = redis.call('HGETALL', KEYS[2])
local live = {}
local total = 0
for i = 1, #counts, 2 do
  local at = tonumber(counts[i])
  if at <= bucket - buckets then
    redis.call('HDEL', KEYS[2], counts[i])
  else
    total = total + tonumber(counts[i + 1])
    live[#live + 1] = {at, tonumber(counts[i + 1])}
  end
end
local budget = tonumber(ARGV[3])
if total >= budget then
  -- One more is allowed once the oldest buckets holding total - budget + 1 ids leave the window.
  table.sort(live, function(a, b) return a[1] < b[1] end)
  local excess = total - budget + 1
  for _, entry in ipairs(live) do
    excess = excess - entry[2]
    if excess <= 0 then return {0, math.max(1, (entry[1] + buckets) * size - now)} end
  end
  return {0, buckets * size}
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('HINCRBY', KEYS[2], bucket, 1)
redis.call('EXPIRE', KEYS[2], buckets * size)
return {2, now, bucket}
`;

/** A released claim (its event failed) gives its count back: only remembered ids count. */
const RELEASE = `
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
local count = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if count > 1 then redis.call('HINCRBY', KEYS[2], ARGV[1], -1)
elseif count == 1 then redis.call('HDEL', KEYS[2], ARGV[1]) end
return 1
`;

interface BudgetCommands {
  podBouncerClaimCloudEvent(
    key: string,
    counts: string,
    claim: string,
    ttl: string,
    budget: string,
    size: string,
    buckets: string,
  ): Promise<number[]>;
  podBouncerReleaseCloudEvent(key: string, counts: string, bucket: string): Promise<number>;
}

function commands(redis: Redis): Redis & BudgetCommands {
  return withLuaCommands<BudgetCommands>(redis, {
    podBouncerClaimCloudEvent: { numberOfKeys: 2, lua: CLAIM_WITHIN_BUDGET },
    podBouncerReleaseCloudEvent: { numberOfKeys: 2, lua: RELEASE },
  });
}

/** Redis key of the CloudEvent ids one credential made Redis remember, by hour of their claim. */
export function cloudEventIdsKey(prefix: string, sender: string): string {
  return `${prefix}:${QUEUE_NAME}:cloudevent-ids:${sender}`;
}

/** A claim that counted: when it was made (s) and the bucket it counted in. */
export interface CountedClaim {
  at: number;
  bucket: number;
}

/** Where a sender's claim of one CloudEvent id is kept and counted. */
export interface BudgetedClaim {
  key: string;
  prefix: string;
  sender: string;
  /** CLOUDEVENT_IDS_PER_DAY: new ids a credential may have remembered in any 24 h. */
  perDay: number;
}

/**
 * Claims a CloudEvent id for CLAIM_TTL_SECONDS: the counted claim, or undefined when the id is
 * stored already (a repeat or a conflict, read by the caller). A new id beyond the sender's
 * budget is a 429 `rate_limited` with Retry-After, and changes nothing.
 */
export async function claimWithinBudget(
  redis: Redis,
  { key, prefix, sender, perDay }: BudgetedClaim,
  claim: string,
): Promise<CountedClaim | undefined> {
  const [outcome = 1, first = 0, second = 0] = await inRedis(() =>
    commands(redis).podBouncerClaimCloudEvent(
      key,
      cloudEventIdsKey(prefix, sender),
      claim,
      String(CLAIM_TTL_SECONDS),
      String(perDay),
      String(BUCKET_SECONDS),
      String(BUCKETS),
    ),
  );
  if (outcome === 1) return undefined;
  if (outcome === 2) return { at: first, bucket: second };
  throw new CloudEventIdsBudgetError(
    `This credential already had ${perDay} new CloudEvent ids remembered in the past 24 hours (CLOUDEVENT_IDS_PER_DAY); a new id is accepted in ${first} s. Redeliveries of ids it sent are still answered.`,
    first,
  );
}

/** Forgets a claimed id whose event failed, and gives its count back to the sender's budget. */
export async function releaseClaim(
  redis: Redis,
  { key, prefix, sender }: BudgetedClaim,
  claim: CountedClaim,
): Promise<void> {
  await commands(redis)
    .podBouncerReleaseCloudEvent(key, cloudEventIdsKey(prefix, sender), String(claim.bucket))
    .catch(() => undefined);
}
