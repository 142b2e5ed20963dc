import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { QUEUE_NAME, latestRunKey } from '../../src/queue/names.js';
import type { SelectorJobData } from '../../src/queue/selector-job.js';
import { BounceLease } from '../../src/workflow/bounce-lease.js';
import { REDIS_URL, deletePrefix } from '../support/redis.js';

/**
 * The bounce lease is one run's at a time (DESIGN §2 *Runs*), shared by that run's selectors: a
 * run with several selectors in progress must not queue their batches behind one another.
 */
describe('BounceLease on Redis', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = `pbtest-lease-${randomBytes(3).toString('hex')}`;
  const lease = new BounceLease(redis, prefix);
  afterAll(async () => {
    await deletePrefix(prefix);
    redis.disconnect();
  });

  const job = (
    uid: string,
    runKey: string,
    index: number,
    { name = `d-${uid}`, acceptedAt = '2026-11-29T12:00:00.000Z' } = {},
  ): SelectorJobData => ({
    directive: { namespace: 'ns', name, uid },
    generation: 1,
    runKey,
    acceptedAt,
    selectorIndex: index,
    selectorCount: 3,
    selector: { namespace: 'ns', labels: {}, waitForReplicas: 0 },
    progress: { step: 'bounce' },
  });
  /** A job holding its BullMQ lock (the lease's holders are live only while their lock is). */
  const locked = async (jobId: string, token: string): Promise<void> => {
    await redis.set(`${prefix}:${QUEUE_NAME}:${jobId}:lock`, token, 'PX', 60_000);
  };
  const latest = (uid: string, runKey: string) =>
    redis.set(latestRunKey(prefix, uid), JSON.stringify({ generation: 1, runKey }));

  it('is shared by the selectors of one run and refused to another run while they hold it', async () => {
    await latest('u1', '100');
    await locked('a', 'ta');
    await locked('b', 'tb');
    expect(await lease.acquire(job('u1', '100', 0), 'a', 'ta')).toBe('held');
    // The same run's next selector goes on beside it.
    expect(await lease.acquire(job('u1', '100', 1), 'b', 'tb')).toBe('held');
    // A newer run, once claimed, waits for both batches in flight to be answered.
    await latest('u1', '200');
    await locked('c', 'tc');
    expect(await lease.acquire(job('u1', '200', 0), 'c', 'tc')).toBe('busy');
    await lease.release(job('u1', '100', 0), 'a');
    expect(await lease.acquire(job('u1', '200', 0), 'c', 'tc')).toBe('busy');
    await lease.release(job('u1', '100', 1), 'b');
    expect(await lease.acquire(job('u1', '200', 0), 'c', 'tc')).toBe('held');
    // The older run sends nothing more.
    expect(await lease.acquire(job('u1', '100', 2), 'a', 'ta')).toBe('superseded');
  });

  it("lets a holder whose lock lapsed (its worker died) go, and keeps a live one's hold", async () => {
    await latest('u2', '100');
    await locked('d', 'td');
    expect(await lease.acquire(job('u2', '100', 0), 'd', 'td')).toBe('held');
    await latest('u2', '200');
    await locked('e', 'te');
    expect(await lease.acquire(job('u2', '200', 0), 'e', 'te')).toBe('busy');
    // Another worker took the job over after its lock lapsed: the old hold is no longer live.
    await locked('d', 'td-2');
    expect(await lease.acquire(job('u2', '200', 0), 'e', 'te')).toBe('held');
  });

  it('is one per name: a directive re-created under it waits for the batch in flight, then wins', async () => {
    // Both uids' first runs: generation 1, no issuance (the same run key).
    const old = (index: number) => job('u3', '0', index, { name: 'same' });
    const renewed = (index: number) =>
      job('u4', '0', index, { name: 'same', acceptedAt: '2026-11-29T12:00:05.000Z' });
    await latest('u3', '0');
    await latest('u4', '0');
    await locked('f', 'tf');
    await locked('g', 'tg');
    expect(await lease.acquire(old(0), 'f', 'tf')).toBe('held');
    // The old directive's batch is in flight: the new one does not choose meanwhile.
    expect(await lease.acquire(renewed(0), 'g', 'tg')).toBe('busy');
    await lease.release(old(0), 'f');
    expect(await lease.acquire(renewed(0), 'g', 'tg')).toBe('held');
    await lease.release(renewed(0), 'g');
    // The old directive's chain sends nothing more, though the lease is free.
    expect(await lease.acquire(old(1), 'f', 'tf')).toBe('superseded');
    expect(await lease.acquire(renewed(1), 'g', 'tg')).toBe('held');
  });
});
