import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { eventually, type Harness } from './harness.js';
import { REDIS_URL } from './redis.js';

/** Every command the api's Redis connection sends while `work` runs, seen by MONITOR. */
export async function commandsDuring(h: Harness, work: () => Promise<void>): Promise<string[][]> {
  const probe = new Redis(REDIS_URL);
  const id = await h.serve.redis.client('ID');
  const listed = String(await probe.client('LIST', 'ID', String(id)));
  const address = /addr=(\S+)/.exec(listed)?.[1];
  expect(address).toBeDefined();
  const monitor = await probe.monitor();
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source === address) seen.push(args);
  });
  try {
    // A marker command from the api's own connection shows MONITOR is seeing it.
    await h.serve.redis.echo('monitor-start');
    await eventually('MONITOR to see the api', () =>
      seen.some((args) => args[1] === 'monitor-start') ? true : undefined,
    );
    seen.length = 0;
    await work();
    await h.serve.redis.echo('monitor-end');
    await eventually('MONITOR to catch up', () =>
      seen.some((args) => args[1] === 'monitor-end') ? true : undefined,
    );
    return seen.filter((args) => args[1] !== 'monitor-end');
  } finally {
    monitor.disconnect();
    probe.disconnect();
  }
}
