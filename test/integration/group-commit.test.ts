import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, type Harness } from '../support/harness.js';
import { commandsDuring } from '../support/redis-monitor.js';

const count = (commands: string[][], name: string): number =>
  commands.filter((args) => args[0]?.toLowerCase() === name).length;

describe('new events by group commit', () => {
  let h: Harness;
  const names = Array.from({ length: 30 }, (_, index) => `gc-${index}`);

  beforeAll(async () => {
    h = await startHarness('group-commit', { worker: false });
    for (const name of names) {
      h.sim.applyDirective(
        directive('apps', name, [{ namespace: 'apps', labels: { app: name }, waitForReplicas: 0 }]),
      );
    }
  });
  afterAll(async () => h.close());

  it('events that arrive together are enqueued in fewer commits than events, each its own run', async () => {
    const answers: { status: number; body: any }[] = [];
    const commands = await commandsDuring(h, async () => {
      answers.push(
        ...(await Promise.all(
          names.map((name) => h.post({ directive: { namespace: 'apps', name } })),
        )),
      );
    });
    expect(answers.map((answer) => answer.status)).toEqual(names.map(() => 202));
    expect(answers.every((answer) => answer.body.duplicate === false)).toBe(true);
    expect(new Set(answers.map((answer) => answer.body.jobIds[0])).size).toBe(names.length);
    for (const answer of answers)
      expect(await h.serve.queue.getJob(answer.body.jobIds[0])).toBeDefined();

    // Per commit: one claim script and one confirmation script (which checks the runs' jobs are
    // in Redis) for all its events, the flows in one MULTI, one replica check.
    const commits = count(commands, 'info');
    const runScripts = commands.filter(
      (args) =>
        ['evalsha', 'eval'].includes(args[0]!.toLowerCase()) &&
        args.some((arg) => arg.includes(':bounce:accepted:')),
    );
    expect(runScripts).toHaveLength(2 * commits);
    expect(commits).toBeGreaterThanOrEqual(1);
    // Two commits may be in flight at once, so how many events share one varies with timing
    // (about 15 commits here); one commit per event would be 30.
    expect(commits).toBeLessThan(names.length);
    expect(count(commands, 'multi')).toBe(commits);
  });

  it('a commit whose jobs Redis refuses answers 503 to each of its events, and their retries start the runs', async () => {
    h.sim.applyDirective(
      directive('apps', 'refused-a', [
        { namespace: 'apps', labels: { app: 'a' }, waitForReplicas: 0 },
      ]),
    );
    h.sim.applyDirective(
      directive('apps', 'refused-b', [
        { namespace: 'apps', labels: { app: 'b' }, waitForReplicas: 0 },
      ]),
    );
    // The queue's meta hash as a string: every job script of the transaction fails (WRONGTYPE).
    const meta = `${h.prefix}:bounce:meta`;
    const saved = await h.serve.redis.hgetall(meta);
    await h.serve.redis.del(meta);
    await h.serve.redis.set(meta, 'not a hash');
    const refused = await Promise.all(
      ['refused-a', 'refused-b'].map((name) => h.post({ directive: { namespace: 'apps', name } })),
    );
    expect(refused.map((answer) => answer.status)).toEqual([503, 503]);
    expect(refused[0]!.headers.get('retry-after')).not.toBeNull();

    await h.serve.redis.del(meta);
    if (Object.keys(saved).length > 0) await h.serve.redis.hset(meta, saved);
    const retried = await Promise.all(
      ['refused-a', 'refused-b'].map((name) => h.post({ directive: { namespace: 'apps', name } })),
    );
    expect(retried.map((answer) => answer.status)).toEqual([202, 202]);
    // The refused claims were released: the retries are new runs, not duplicates of nothing.
    expect(retried.map((answer) => answer.body.duplicate)).toEqual([false, false]);
    for (const answer of retried) {
      for (const id of answer.body.jobIds) expect(await h.serve.queue.getJob(id)).toBeDefined();
    }
  });
});
