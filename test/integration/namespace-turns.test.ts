// The turns selector jobs take in their directive's namespace, on a real Redis, and what BullMQ
// 6.7 does with them: a promoted delayed job and a chain's released job are queued at the
// priority their turn set, ahead of a flooding namespace's.
import { randomBytes } from 'node:crypto';
import { FlowProducer, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAME, turnsKey } from '../../src/queue/names.js';
import { LAST_TURN, NamespaceTurns, TURN_WINDOW_MS } from '../../src/queue/namespace-turns.js';
import { claimRuns } from '../../src/queue/run-claims.js';
import type { Run } from '../../src/queue/runs.js';
import { REDIS_URL, deletePrefix } from '../support/redis.js';

const jobKey = (prefix: string, id: string) => `${prefix}:${QUEUE_NAME}:${id}`;

describe('turns by directive namespace', () => {
  const prefix = `pbtest-turns-${randomBytes(3).toString('hex')}`;
  let redis: Redis;
  let turns: NamespaceTurns;
  let queue: Queue;
  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    turns = new NamespaceTurns(redis, prefix);
    queue = new Queue(QUEUE_NAME, { connection: redis, prefix });
  });
  afterAll(async () => {
    await queue.close();
    redis.disconnect();
    await deletePrefix(prefix);
  });

  const priorities = async (ids: string[]) =>
    Promise.all(ids.map(async (id) => Number(await redis.hget(jobKey(prefix, id), 'priority'))));

  it('gives each namespace its own turns, one per job queued, up to the last', async () => {
    const ids = Array.from({ length: 70 }, (_, index) => `job-${index}`);
    for (const id of ids) await redis.hset(jobKey(prefix, id), 'priority', 0);
    await turns.take('alpha', ['job-0']);
    await turns.take('alpha', ['job-1', 'job-2']);
    await turns.take('beta', ['job-3']);
    expect(await priorities(['job-0', 'job-1', 'job-2', 'job-3'])).toEqual([1, 2, 3, 1]);
    // A job no longer in Redis takes its turn all the same, and is not written back.
    await turns.take('beta', ['gone', 'job-4']);
    expect(await redis.exists(jobKey(prefix, 'gone'))).toBe(0);
    expect(await priorities(['job-4'])).toEqual([3]);
    await turns.take('alpha', ids.slice(5));
    const late = await priorities(ids.slice(5));
    expect(late.slice(0, 3)).toEqual([4, 5, 6]);
    expect(late.slice(-5)).toEqual(Array(5).fill(LAST_TURN));
    const ttl = await redis.pttl(turnsKey(prefix, 'alpha'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2 * TURN_WINDOW_MS);
  });

  it('counts the window before as much of it as is still within one, and none older', async () => {
    const key = turnsKey(prefix, 'gamma');
    await redis.hset(jobKey(prefix, 'g'), 'priority', 0);
    const nowOf = async () => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    // Tried again in the rare case a window ends during the check.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await redis.del(key);
      const before = await nowOf();
      const window = Math.floor(before / TURN_WINDOW_MS);
      await redis.hset(key, String(window - 1), 40, String(window - 2), 1000);
      await turns.take('gamma', ['g']);
      const after = await nowOf();
      if (Math.floor(after / TURN_WINDOW_MS) !== window) continue;
      const stillIn = (at: number) => 1 - (at % TURN_WINDOW_MS) / TURN_WINDOW_MS;
      const [turn] = await priorities(['g']);
      expect(turn).toBeLessThanOrEqual(Math.round(40 * stillIn(before)) + 1);
      expect(turn).toBeGreaterThanOrEqual(Math.round(40 * stillIn(after)) + 1);
      expect(await redis.hkeys(key)).toEqual([String(window - 1), String(window)]);
      return;
    }
    throw new Error('a window ended during each of three checks');
  });

  it("queues a promoted job and a chain's released job at their turns, before a flood's", async () => {
    const flood = await queue.addBulk(
      Array.from({ length: 3 }, (_, index) => ({
        name: 'flood',
        data: {},
        opts: { jobId: `flood-${index}`, priority: LAST_TURN },
      })),
    );
    const parked = await queue.add(
      'parked',
      {},
      { jobId: 'parked', priority: LAST_TURN, delay: 60_000 },
    );
    const flows = new FlowProducer({ connection: redis, prefix });
    await flows.add({
      name: 'next',
      queueName: QUEUE_NAME,
      opts: { jobId: 'next', priority: LAST_TURN },
      children: [{ name: 'first', queueName: QUEUE_NAME, opts: { jobId: 'first', priority: 1 } }],
    });
    await flows.close();
    await turns.take('quiet', ['parked']);
    await parked.promote();
    // The chain's first selector completes; the next one took its turn just before.
    const worker = new Worker(QUEUE_NAME, null, { connection: redis, prefix, autorun: false });
    try {
      const first = await worker.getNextJob('token');
      expect(first?.id).toBe('first');
      await turns.take('quiet', ['next']);
      await first?.moveToCompleted('done', 'token', false);
    } finally {
      await worker.close();
    }
    expect(await queue.getJobState('next')).toBe('prioritized');
    const order = await redis.zrange(`${prefix}:${QUEUE_NAME}:prioritized`, '0', '-1');
    expect(order).toEqual(['parked', 'next', ...flood.map((job) => job.id)]);
  });

  it('takes a new run’s turns with its claim: one per job it queues at once', async () => {
    const run = (uid: string): Run => ({
      uid,
      generation: 1,
      runKey: '0',
      jobIds: [`${uid}.s0`],
      acceptedAt: new Date().toISOString(),
    });
    const claims = await claimRuns(
      redis,
      prefix,
      [
        {
          run: run('wide'),
          directive: { namespace: 'delta', name: 'wide' },
          issuance: false,
          queued: 3,
        },
        {
          run: run('wide'),
          directive: { namespace: 'delta', name: 'wide' },
          issuance: false,
          queued: 3,
        },
        { run: run('chain'), directive: { namespace: 'delta', name: 'chain' }, issuance: false },
        { run: run('other'), directive: { namespace: 'epsilon', name: 'other' }, issuance: false },
      ],
      { retentionSeconds: 600 },
    );
    expect(claims.map((claim) => (claim.decision === 'new' ? claim.turn : claim.decision))).toEqual(
      [1, 'duplicate', 4, 1],
    );
  });
});
