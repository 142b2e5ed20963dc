// What a run costs Redis for RETENTION_DAYS: each selector is stored once (in its job), and the
// rest of a job is a bounded overhead — not the selector's labels again in its name and in every
// event BullMQ streams about it (an 834 KB directive of 1000 selectors stored ~4.9 MB before).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, type Harness } from '../support/harness.js';
import { redisBytes } from '../support/redis-bytes.js';

/** Bytes a job may take beyond its selector's own JSON (data, opts, name, its events; a chain's links). */
const OVERHEAD_MAX = 3072;

describe('Redis bytes per selector', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('redis-bytes', { worker: false });
  });
  afterAll(async () => h.close());

  for (const concurrency of [1, 50]) {
    it(`are the selector's own size plus a bounded overhead (maxConcurrentSelectors ${concurrency})`, async () => {
      // Selectors as large as a 1 MiB body of 1000 of them allows: a dozen long labels each.
      const selectors = Array.from({ length: 1000 }, (_, i) => ({
        namespace: `ns-${i % 100}`,
        labels: Object.fromEntries(
          Array.from({ length: 12 }, (_, j) => [
            `label-key-${j}.example.com/x${i}`,
            `v${'y'.repeat(30)}`,
          ]),
        ),
        waitForReplicas: 0,
      }));
      const name = `large-${concurrency}`;
      const manifest = directive('istio-system', name, selectors);
      (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = concurrency;
      h.sim.applyDirective(manifest);
      const selectorBytes = Buffer.byteLength(JSON.stringify(selectors)) / selectors.length;
      const before = await redisBytes(h.prefix);
      const answer = await h.post({ directive: { namespace: 'istio-system', name } });
      expect(answer.status).toBe(202);
      const after = await redisBytes(h.prefix);
      const perSelector = (after.bytes - before.bytes) / selectors.length;
      console.log(
        JSON.stringify({
          concurrency,
          selectorBytes: Math.round(selectorBytes),
          redisBytesPerSelector: Math.round(perSelector),
        }),
      );
      expect(perSelector - selectorBytes).toBeLessThan(OVERHEAD_MAX);
    });
  }
});
