import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpProblem } from '../../src/ingress/http-errors.js';
import { CredentialRateLimit, rateLimitKey } from '../../src/ingress/rate-limit.js';
import { deletePrefix, REDIS_URL } from '../support/redis.js';

/** The seconds of Retry-After a refusal gives, or undefined when the request was admitted. */
async function attempt(
  limit: CredentialRateLimit,
  credential: string,
): Promise<number | undefined> {
  try {
    await limit.admit(credential);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpProblem);
    expect((error as HttpProblem).statusCode).toBe(429);
    return Number((error as HttpProblem).headers['retry-after']);
  }
}

/**
 * The window slides: a request leaves the count one window after it was made, not when a fixed
 * window started by the first one ends. A window of 2 s here stands for the 60 s of
 * RATE_LIMIT_PER_MINUTE, with a second between the requests either side of its end.
 */
describe('CredentialRateLimit on Redis', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = `pbtest-rate-${randomBytes(3).toString('hex')}`;
  afterAll(async () => {
    await deletePrefix(prefix);
    redis.disconnect();
  });

  it('admits `limit` requests in any window, whenever in the window they came', async () => {
    const limit = new CredentialRateLimit(redis, prefix, 2, 2000);
    expect(await attempt(limit, 'issuer')).toBeUndefined(); // t = 0
    await sleep(1000);
    expect(await attempt(limit, 'issuer')).toBeUndefined(); // t = 1 s
    // Full until the first leaves the window, about 1 s from now.
    const retry = await attempt(limit, 'issuer');
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(2);
    await sleep(1200); // t = 2.2 s: the first has left the window, the second has not
    expect(await attempt(limit, 'issuer')).toBeUndefined();
    // A fixed window begun at t = 0 would have started afresh and admitted this one too.
    expect(await attempt(limit, 'issuer')).toBeGreaterThanOrEqual(1);
    // Refusals were not recorded; the set holds the limit at most, and expires with the window.
    const key = rateLimitKey(prefix, 'issuer');
    expect(await redis.zcard(key)).toBe(2);
    expect(await redis.pttl(key)).toBeLessThanOrEqual(2000);
  });

  it('keeps one count per credential name', async () => {
    const limit = new CredentialRateLimit(redis, prefix, 1);
    expect(await attempt(limit, 'certs:issuer')).toBeUndefined();
    expect(await attempt(limit, 'certs:issuer')).toBeGreaterThan(58);
    expect(await attempt(limit, 'hmac')).toBeUndefined();
  });
});
