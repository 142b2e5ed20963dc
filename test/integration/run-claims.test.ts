import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Directive } from '../../src/directive/types.js';
import { runFor } from '../../src/queue/enqueue.js';
import { QUEUE_NAME, acceptedKey } from '../../src/queue/names.js';
import { claimRuns } from '../../src/queue/run-claims.js';
import { confirmRuns, latestRun, type Run } from '../../src/queue/runs.js';
import { useGroupCommit } from '../support/group-commit.js';
import { REDIS_URL, deletePrefix } from '../support/redis.js';

const RETENTION = 600;

function directiveOf(uid: string, generation: number, selectors = 1): Directive {
  return {
    apiVersion: 'pod-bouncer.io/v1',
    kind: 'PodBounceDirective',
    metadata: { namespace: 'apps', name: uid, uid, generation, resourceVersion: '1' },
    spec: {
      podsToBounce: Array.from({ length: selectors }, (_, index) => ({
        namespace: 'apps',
        labels: { app: `${uid}-${index}` },
        waitForReplicas: 0,
      })),
    },
  };
}

const runOf = (uid: string, generation: number, issuedAt?: number): Run =>
  runFor(directiveOf(uid, generation), issuedAt === undefined ? undefined : new Date(issuedAt));

/** The directive by name, as a claim carries it (its budget is by name). */
const nameOf = (run: Run) => ({ namespace: 'apps', name: run.uid });

describe('run claims and confirmations, a batch per script call', () => {
  const prefix = `pbtest-run-claims-${randomBytes(3).toString('hex')}`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    redis.disconnect();
    await deletePrefix(prefix);
  });

  it('decides a batch mixing new, duplicate and superseding runs in order', async () => {
    const a1 = runOf('a', 1, 1_000);
    const a2 = runOf('a', 1, 2_000);
    const a0 = runOf('a', 1, 500);
    const b2 = runOf('b', 2);
    const b1 = runOf('b', 1);
    const claims = await claimRuns(
      redis,
      prefix,
      [
        { run: a1, directive: nameOf(a1), issuance: true },
        // The same run again: its claim from a moment ago is in progress.
        { run: a1, directive: nameOf(a1), issuance: true },
        // A later issuance supersedes a1, which the batch claimed just before.
        { run: a2, directive: nameOf(a2), issuance: true },
        // An older issuance than the latest run: a duplicate of a2.
        { run: a0, directive: nameOf(a0), issuance: true },
        { run: b2, directive: nameOf(b2), issuance: false },
        // An older generation than the latest run.
        { run: b1, directive: nameOf(b1), issuance: false },
        // An object shape starts nothing for a generation that has a run, whatever its time.
        { run: runOf('b', 2, 3_000), directive: nameOf(b2), issuance: false },
      ],
      { retentionSeconds: RETENTION },
    );
    // Each new run's job takes the next turn in the directives' namespace; duplicates take none.
    expect(claims).toEqual([
      { decision: 'new', previous: undefined, turn: 1 },
      { decision: 'duplicate', latest: a1, inProgress: true },
      { decision: 'new', previous: a1, turn: 2 },
      { decision: 'duplicate', latest: a2, inProgress: false },
      { decision: 'new', previous: undefined, turn: 3 },
      { decision: 'duplicate', latest: b2, inProgress: false },
      { decision: 'duplicate', latest: b2, inProgress: false },
    ]);
    expect(await latestRun(redis, prefix, 'a')).toEqual(a2);
    expect(await redis.get(acceptedKey(prefix, 'a', 1, a1.runKey))).toBe('claimed');
    expect(await redis.get(acceptedKey(prefix, 'a', 1, a0.runKey))).toBeNull();

    // a1 and a2 have their jobs in Redis, b2 has not.
    for (const run of [a1, a2])
      for (const id of run.jobIds) await redis.hset(`${prefix}:${QUEUE_NAME}:${id}`, 'name', id);
    expect(await confirmRuns(redis, prefix, [a1, a2, b2], RETENTION)).toEqual([true, true, false]);
    // a1 is accepted but does not take the record back from the later a2.
    expect(await redis.get(acceptedKey(prefix, 'a', 1, a1.runKey))).toBe(a1.acceptedAt);
    expect(await redis.get(acceptedKey(prefix, 'a', 1, a2.runKey))).toBe(a2.acceptedAt);
    expect(await latestRun(redis, prefix, 'a')).toEqual(a2);
    expect(await redis.get(acceptedKey(prefix, 'b', 2, b2.runKey))).toBe('claimed');

    const [repeat] = await claimRuns(
      redis,
      prefix,
      [{ run: a1, directive: nameOf(a1), issuance: true }],
      {
        retentionSeconds: RETENTION,
      },
    );
    expect(repeat).toMatchObject({ decision: 'duplicate', latest: a2, inProgress: false });
    expect(repeat?.decision === 'duplicate' && repeat.acceptedTtlMs).toBeGreaterThan(0);
  });
});

describe('a group commit that fails', () => {
  const fixture = useGroupCommit('run-release', { retentionSeconds: RETENTION });

  const enqueue = (issuedAt: number) =>
    fixture.commits.enqueue({
      directive: directiveOf('c', 1),
      issuedAt: new Date(issuedAt),
      issuance: true,
    });

  it('puts back the run that was latest when two runs of one directive fail in one batch', async () => {
    const accepted = await enqueue(1_000);
    expect(accepted.duplicate).toBe(false);

    // The queue's meta hash as a string: every job script of the transaction fails (WRONGTYPE).
    const meta = `${fixture.prefix}:${QUEUE_NAME}:meta`;
    await fixture.redis.del(meta);
    await fixture.redis.set(meta, 'not a hash');
    // Enqueued in one turn of the event loop: one batch, the second run superseding the first.
    const refused = await Promise.allSettled([enqueue(2_000), enqueue(3_000)]);
    expect(refused.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await latestRun(fixture.redis, fixture.prefix, 'c')).toEqual(accepted.run);
    for (const runKey of ['2000', '3000'])
      expect(await fixture.redis.exists(acceptedKey(fixture.prefix, 'c', 1, runKey))).toBe(0);

    await fixture.redis.del(meta);
    const retried = await enqueue(3_000);
    expect(retried.duplicate).toBe(false);
    expect(await latestRun(fixture.redis, fixture.prefix, 'c')).toEqual(retried.run);
  });
});

describe('an event whose issuedAt was ahead of the clock', () => {
  const fixture = useGroupCommit('run-sent', { retentionSeconds: RETENTION });

  /** Received at `receivedAt`, carrying `sent`: the run's issuedAt is the moment received. */
  const enqueue = (receivedAt: number, sent = 9_000) =>
    fixture.commits.enqueue({
      directive: directiveOf('d', 1),
      issuedAt: new Date(receivedAt),
      sentIssuedAt: new Date(sent),
      issuance: true,
    });
  const queuedJobs = async () =>
    (await fixture.redis.keys(`${fixture.prefix}:${QUEUE_NAME}:d.*`))
      .map((key) => key.slice(`${fixture.prefix}:${QUEUE_NAME}:`.length))
      .filter((id) => !id.includes(':'));

  it('is one run with its repeats, delivered at once or after its value has come', async () => {
    // Three deliveries in one batch, each received a moment apart: the first claims the run.
    const [first, ...repeats] = await Promise.all([enqueue(1_000), enqueue(1_001), enqueue(1_002)]);
    expect(first).toMatchObject({ duplicate: false, run: { runKey: '1000', sentKey: '9000' } });
    for (const repeat of repeats) expect(repeat).toMatchObject({ duplicate: true, run: first.run });
    // Only the run's own jobs were added, never a chain for a repeat's moment of arrival.
    expect(await queuedJobs()).toEqual(first.run.jobIds);

    // The same value once it is no longer ahead, or ahead again: still the same issuance.
    const onTime = await fixture.commits.enqueue({
      directive: directiveOf('d', 1),
      issuedAt: new Date(9_000),
      issuance: true,
    });
    expect(onTime).toMatchObject({ duplicate: true, run: first.run });
    expect(await enqueue(1_500)).toMatchObject({ duplicate: true, run: first.run });

    // Another value ahead of the clock, received later, is a later issuance.
    const next = await enqueue(2_000, 8_000);
    expect(next).toMatchObject({ duplicate: false, run: { runKey: '2000', sentKey: '8000' } });
    expect((await queuedJobs()).sort()).toEqual([...first.run.jobIds, ...next.run.jobIds].sort());
  });
});
