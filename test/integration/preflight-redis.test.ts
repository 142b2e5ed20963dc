import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StartupError } from '../../src/errors.js';
import { checkRedis } from '../../src/preflight.js';
import { REDIS_URL } from '../support/redis.js';

/**
 * The shared Redis has 16 databases (0 to 15). A database it refuses must stop start-up: ioredis
 * reports the refused SELECT as an error and then serves on database 0, another queue.
 */
describe('checkRedis', () => {
  const withPassword = (path: string): string =>
    REDIS_URL.replace('redis://', 'redis://:redissecret@') + path;
  const topology = (url: string) => loadConfig({ REDIS_URL: url }).redis;

  it('stops on a database Redis refuses, with one sentence naming REDIS_URL', async () => {
    const refused = checkRedis(topology(`${REDIS_URL}/99`));
    await expect(refused).rejects.toThrow(StartupError);
    await expect(refused).rejects.toThrow(
      new StartupError(
        `Redis at ${REDIS_URL}/99 refuses that database (ERR DB index is out of range): set REDIS_URL to a database it has, such as /0.`,
      ),
    );
  });

  it('starts on a database Redis has', async () => {
    await expect(checkRedis(topology(`${REDIS_URL}/15`))).resolves.toBeUndefined();
    await expect(checkRedis(topology(REDIS_URL))).resolves.toBeUndefined();
  });

  it('never names the password of REDIS_URL', async () => {
    const error = await checkRedis(topology(withPassword('/99'))).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StartupError);
    expect(String(error)).not.toContain('redissecret');
    expect((error as Error).message).toMatch(/^Redis at redis:\/\/127\.0\.0\.1:6379\/99 /);
  });
});
