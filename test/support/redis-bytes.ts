import { Redis } from 'ioredis';
import { REDIS_URL } from './redis.js';

/**
 * Bytes Redis uses for every key under `prefix` (MEMORY USAGE, values and overhead), but those
 * `except` names (say the queue's event stream, which BullMQ caps whatever the directives).
 */
export async function redisBytes(
  prefix: string,
  except: (key: string) => boolean = () => false,
): Promise<{ keys: number; bytes: number }> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    let keys = 0;
    let bytes = 0;
    do {
      const [next, scanned] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      const batch = scanned.filter((key) => !except(key));
      cursor = next;
      const usage = await Promise.all(
        batch.map((key) => redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0') as Promise<number>),
      );
      keys += batch.length;
      bytes += usage.reduce((sum, value) => sum + (value ?? 0), 0);
    } while (cursor !== '0');
    return { keys, bytes };
  } finally {
    redis.disconnect();
  }
}
