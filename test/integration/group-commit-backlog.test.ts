import { describe, expect, it } from 'vitest';
import type { Directive } from '../../src/directive/types.js';
import type { EnqueueResult } from '../../src/queue/enqueue.js';
import { latestRun } from '../../src/queue/runs.js';
import { eventually } from '../support/harness.js';
import { useGroupCommit } from '../support/group-commit.js';

function directiveOf(uid: string): Directive {
  return {
    apiVersion: 'pod-bouncer.io/v1',
    kind: 'PodBounceDirective',
    metadata: { namespace: 'apps', name: uid, uid, generation: 1, resourceVersion: '1' },
    spec: { podsToBounce: [{ namespace: 'apps', labels: { app: uid }, waitForReplicas: 0 }] },
  };
}

describe('group commit under a backlog', () => {
  /** Each commit waits here, after its writes, until the test lets it finish. */
  const held: (() => void)[] = [];
  const fixture = useGroupCommit(
    'gc-backlog',
    { durable: () => new Promise<void>((resolve) => held.push(resolve)) },
    () => held.forEach((resolve) => resolve()),
  );
  let next = 0;

  /** `count` new events in one turn of the event loop. */
  function send(count: number): Promise<EnqueueResult>[] {
    return Array.from({ length: count }, () => {
      const uid = `d-${next++}`;
      return fixture.commits.enqueue({
        directive: directiveOf(uid),
        issuedAt: undefined,
        issuance: true,
      });
    });
  }

  /** Lets the scheduled commits start and their writes reach Redis. */
  async function settle(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      await fixture.redis.ping();
    }
  }

  it('starts more commits only once enough events wait, up to a bound', async () => {
    const answers = [...send(1)];
    await eventually('the first commit to write', () => (held.length === 1 ? true : undefined));
    answers.push(...send(1));
    await eventually('a second commit to write', () => (held.length === 2 ? true : undefined));

    // Two in flight: a few more events wait for one of them to end.
    answers.push(...send(3));
    await settle();
    expect(held).toHaveLength(2);
    // A backlog of eight starts a third commit with all of them.
    answers.push(...send(5));
    await eventually('a third commit to write', () => (held.length === 3 ? true : undefined));
    for (const expected of [4, 5, 6]) {
      answers.push(...send(8));
      await eventually(`commit ${expected} to write`, () =>
        held.length === expected ? true : undefined,
      );
    }
    // Six in flight: a backlog however large waits.
    answers.push(...send(20));
    await settle();
    expect(held).toHaveLength(6);

    // Ending one commit lets the waiting twenty go in one.
    held[0]!();
    await eventually('the backlog to go out', () => (held.length === 7 ? true : undefined));
    for (const resolve of held) resolve();
    const results = await Promise.all(answers);
    expect(results).toHaveLength(1 + 1 + 3 + 5 + 3 * 8 + 20);
    expect(results.every((result) => !result.duplicate)).toBe(true);
    for (const result of results)
      expect(await latestRun(fixture.redis, fixture.prefix, result.run.uid)).toEqual(result.run);
  });
});
