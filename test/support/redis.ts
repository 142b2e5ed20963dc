import { Redis } from 'ioredis';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** Removes every key under a test's own prefix; never touches anything else on the shared Redis. */
export async function deletePrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
