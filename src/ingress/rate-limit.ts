import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { QUEUE_NAME } from '../queue/names.js';
import { HttpProblem } from './http-errors.js';
import { inRedis } from '../queue/durable.js';
import { withLuaCommands } from '../queue/lua-commands.js';

/** The window of RATE_LIMIT_PER_MINUTE. */
export const RATE_WINDOW_MS = 60_000;

/**
 * One request of a credential, counted in a window that slides. Neither library at hand counts
 * that way: @fastify/rate-limit's Redis store (INCR, PEXPIRE from a window's first request) and
 * BullMQ's limiter (which limits a worker's jobs, not requests) count in fixed windows, which let
 * twice the limit through in 60 s across a window's end. DESIGN §2 says "in any 60 s": this keeps
 * the times of the credential's admitted requests in a sorted set, trimmed to the window, and
 * decides on it atomically for every api replica in one round trip. Times are Redis's own (TIME),
 * so replicas whose clocks differ count alike. A refused request is not recorded: the set holds at
 * most the limit, however hard the credential pushes, and expires with the window.
 *
 * KEYS[1]: the credential's set. ARGV: the limit, the window (ms), a member unique to this request.
 * Answers 0 when the request is admitted, else the ms until one more would be.
 */
const SLIDING_WINDOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
-- One more is admitted once all but limit - 1 of the recorded requests have left the window.
local freeing = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
return math.max(1, tonumber(freeing[2]) + window - now)
`;

interface RateLimitCommands {
  podBouncerRateLimit(
    key: string,
    limit: string,
    windowMs: string,
    member: string,
  ): Promise<number>;
}

function commands(redis: Redis): Redis & RateLimitCommands {
  return withLuaCommands<RateLimitCommands>(redis, {
    podBouncerRateLimit: { numberOfKeys: 1, lua: SLIDING_WINDOW },
  });
}

/** Redis key of one credential's recent requests (names are plain: `issuer`, `certs:issuer`). */
export function rateLimitKey(prefix: string, credential: string): string {
  return `${prefix}:${QUEUE_NAME}:rate:${credential}`;
}

/**
 * RATE_LIMIT_PER_MINUTE: each credential may make `limit` requests in any 60 s, counted in Redis
 * so that every api replica counts the same requests (DESIGN §2).
 */
export class CredentialRateLimit {
  /** Members must be unique across replicas: this process's tag, then a sequence. */
  private readonly tag = randomBytes(6).toString('hex');
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: number,
    private readonly windowMs = RATE_WINDOW_MS,
  ) {}

  /**
   * Counts one request of `credential` (by name), or refuses it with a 429 `rate_limited` whose
   * `Retry-After` is the seconds until one more is allowed; a refused request is not counted.
   * Redis out of reach is a 503, like any request that needs it.
   */
  async admit(credential: string): Promise<void> {
    this.sequence += 1;
    const member = `${this.tag}:${this.sequence}`;
    const key = rateLimitKey(this.prefix, credential);
    const waitMs = await inRedis(() =>
      commands(this.redis).podBouncerRateLimit(
        key,
        String(this.limit),
        String(this.windowMs),
        member,
      ),
    );
    if (waitMs === 0) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new HttpProblem(
      429,
      'rate_limited',
      `This credential made ${this.limit} requests in the last ${this.windowMs / 1000} s (RATE_LIMIT_PER_MINUTE); try again in ${seconds} s.`,
      { 'retry-after': String(seconds) },
    );
  }
}
