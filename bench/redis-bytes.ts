// Bytes a run leaves in Redis: `npx tsx bench/redis-bytes.ts`. Runs three-selector directives to
// FINISHED on the simulator and a real Redis (127.0.0.1:6379, under a prefix of its own), then sums
// MEMORY USAGE over every key of the prefix; the growth per further run is the figure that
// RETENTION_DAYS multiplies.
import { Redis } from 'ioredis';
import { directive, startHarness, waitForState } from '../test/support/harness.js';
import { REDIS_URL } from '../test/support/redis.js';

const RUNS = 5;

async function prefixBytes(redis: Redis, prefix: string): Promise<{ keys: number; bytes: number }> {
  let cursor = '0';
  let keys = 0;
  let bytes = 0;
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    for (const key of batch) {
      keys += 1;
      bytes += Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    }
  } while (cursor !== '0');
  return { keys, bytes };
}

async function main(): Promise<void> {
  const h = await startHarness('bytes');
  const redis = new Redis(REDIS_URL);
  try {
    const sizes: Array<{ keys: number; bytes: number }> = [];
    for (let run = 0; run < RUNS; run += 1) {
      const namespace = `ns${run}`;
      for (const app of ['a', 'b', 'c']) {
        h.sim.addWorkload({
          namespace,
          name: app,
          kind: 'ReplicaSet',
          labels: { app },
          replicas: 2,
        });
      }
      h.sim.applyDirective(
        directive(
          namespace,
          'certs',
          ['a', 'b', 'c'].map((app) => ({ namespace, labels: { app }, waitForReplicas: 2 })),
        ),
      );
      const answer = await h.post({
        directive: { namespace, name: 'certs' },
        issuedAt: new Date().toISOString(),
      });
      if (answer.status !== 202) throw new Error(`event answered ${answer.status}`);
      await waitForState(h, namespace, 'certs', 'FINISHED', 60_000);
      // Let the worker's last writes (completion, events) land.
      await new Promise((resolve) => setTimeout(resolve, 500));
      sizes.push(await prefixBytes(redis, h.prefix));
    }
    const first = sizes[0]!;
    const last = sizes.at(-1)!;
    const perRun = Math.round((last.bytes - first.bytes) / (RUNS - 1));
    const keysPerRun = (last.keys - first.keys) / (RUNS - 1);
    console.log(JSON.stringify({ afterEachRun: sizes, bytesPerRun: perRun, keysPerRun }, null, 2));
  } finally {
    redis.disconnect();
    await h.close();
  }
}

await main();
