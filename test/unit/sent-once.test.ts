// DESIGN §4 Guarantees with maxConcurrentSelectors > 1: of the run's selectors that chose the same
// pod, only the first to record it sends it (`SentPods.record`, one script in the real Redis).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';

import type { ChosenPod, SelectorJobData } from '../../src/queue/selector-job.js';
import { SentPods } from '../../src/workflow/sent-pods.js';
import { choiceOf } from '../../src/workflow/sibling-down.js';
import { deletePrefix, REDIS_URL } from '../support/redis.js';

const owner = { kind: 'ReplicaSet', name: 'reviews-7f9' };
const controlled = (uid: string): ChosenPod => ({ name: uid, uid, owner });
const bare = (uid: string): ChosenPod => ({ name: uid, uid });

function job(runKey: string, selectorIndex: number, concurrent = true): SelectorJobData {
  return {
    directive: { namespace: 'istio-system', name: 'mesh-certs', uid: 'u-1' },
    generation: 1,
    runKey,
    acceptedAt: '2026-11-29T12:00:00.000Z',
    selectorIndex,
    selectorCount: 3,
    selector: { namespace: 'bookinfo', labels: { app: 'reviews' }, waitForReplicas: 0 },
    ...(concurrent ? { order: { limit: 2, barrier: false, after: -1 } } : {}),
    progress: { step: 'bounce' },
  };
}

describe('a chunk recorded as sent', () => {
  const prefix = `pbtest-sent-once-${randomBytes(3).toString('hex')}`;
  const redis = new Redis(REDIS_URL);
  const sent = new SentPods(redis, prefix, 60_000, 3_600_000);
  afterAll(async () => {
    await deletePrefix(prefix);
    redis.disconnect();
  });

  it('leaves out the pods another selector of the run recorded, bare or not, and records the rest', async () => {
    expect((await sent.record(job('1', 0), [controlled('a'), bare('b')])).taken).toEqual([]);
    const { taken } = await sent.record(job('1', 1), [controlled('a'), bare('b'), controlled('c')]);
    expect(taken.sort()).toEqual(['a', 'b']);
    // 'c' is selector 1's now: selector 2 leaves it out too.
    expect((await sent.record(job('1', 2), [controlled('c'), controlled('d')])).taken).toEqual([
      'c',
    ]);
    // The entries that tell a newer run what is down: each pod once, by the selector that sent it.
    expect((await sent.list(job('1', 0))).map((pod) => pod.uid).sort()).toEqual(['a', 'c', 'd']);
  });

  it("never leaves out a selector's own pods: it sends again what its last attempt left undone", async () => {
    expect((await sent.record(job('2', 0), [controlled('e')])).taken).toEqual([]);
    expect((await sent.record(job('2', 0), [controlled('e')])).taken).toEqual([]);
  });

  it('is per run: another run of the directive sends what it chose', async () => {
    expect((await sent.record(job('3', 1), [controlled('a'), bare('b')])).taken).toEqual([]);
  });

  it('with one selector at a time, leaves nothing out and keeps no record per run', async () => {
    expect((await sent.record(job('4', 0, false), [controlled('f'), bare('g')])).taken).toEqual([]);
    expect((await sent.record(job('4', 1, false), [controlled('f'), bare('g')])).taken).toEqual([]);
    expect(await redis.keys(`${prefix}:*run-sent*:4`)).toEqual([]);
  });

  it('holds back a pod that would take a selector that chose it past its maxUnavailable', async () => {
    const pods = ['w1', 'w2', 'w3', 'w4'].map(controlled);
    const selector = job('5', 0).selector;
    // Selector 0 chose the web pods, selector 1 those and api ones: 2 each at most.
    await sent.registerChoice(job('5', 0), choiceOf(selector, pods, 2));
    const all = [...pods, ...['a1', 'a2'].map(controlled)];
    await sent.registerChoice(job('5', 1), choiceOf(selector, all, 2));
    expect(await sent.record(job('5', 0), pods.slice(0, 2))).toEqual({
      taken: [],
      held: [],
      claimed: new Map(),
    });
    // Selector 1's own batch would make 4 of its pods down: held back, selector 0's budget too.
    expect(await sent.record(job('5', 1), [controlled('a1')])).toEqual({
      taken: [],
      held: ['a1'],
      heldBy: '1',
      claimed: new Map(),
    });
    expect(await sent.record(job('5', 0), [controlled('w3')])).toEqual({
      taken: [],
      held: ['w3'],
      heldBy: '0',
      claimed: new Map(),
    });
    // Two Ready replacements counted for selector 1 (and so for 0, whose pods they replace).
    expect(await sent.record(job('5', 1), [controlled('a1')], { credits: { '1': 2 } })).toEqual({
      taken: [],
      held: [],
      claimed: new Map(),
    });
    // A pod a selector recorded before is sent again without a check: it is counted already.
    expect((await sent.record(job('5', 0), pods.slice(0, 2))).held).toEqual([]);
    expect(await sent.sentBySiblings(job('5', 1), ['w1', 'w2', 'w3', 'a1'])).toEqual(['w1', 'w2']);
  });

  it("leaves out the pods another directive's run claimed first, with the second it sent them in", async () => {
    const other = (runKey: string): SelectorJobData => {
      const data = job(runKey, 0, false);
      return { ...data, directive: { ...data.directive, name: 'other', uid: 'u-2' } };
    };
    const now = Math.floor(Date.now() / 1000) * 1000 + 500;
    expect((await sent.record(other('6'), [controlled('x1'), bare('x2')], { now })).taken).toEqual(
      [],
    );
    const answer = await sent.record(job('6', 0, false), [
      controlled('x1'),
      bare('x2'),
      bare('x3'),
    ]);
    expect(answer.taken.sort()).toEqual(['x1', 'x2']);
    expect(answer.claimed).toEqual(
      new Map([
        ['x1', now - 500],
        ['x2', now - 500],
      ]),
    );
    // Its own claims (a re-run, another run of it) let the pods go; the other's still do not.
    expect((await sent.record(job('7', 1), [bare('x3')])).taken).toEqual([]);
    expect((await sent.record(other('8'), [bare('x3'), controlled('x1')])).taken).toEqual(['x3']);
  });

  it("answers the claims other directives made on the owners' pods, not its own nor bare ones", async () => {
    const of = (uid: string, runKey: string): SelectorJobData => {
      const data = job(runKey, 0, false);
      return { ...data, directive: { ...data.directive, name: uid, uid } };
    };
    const now = Math.floor(Date.now() / 1000) * 1000;
    // u-3 sends y1 (controlled), y2 (bare) and y3, a pod of another owner; this directive sends y4.
    const stranger = { name: 'y3', uid: 'y3', owner: { kind: 'ReplicaSet', name: 'ratings-1' } };
    await sent.record(of('u-3', '9'), [controlled('y1'), bare('y2'), stranger], { now });
    await sent.record(job('9', 0, false), [controlled('y4')], { now });
    const owners = [`${owner.kind}/${owner.name}`];
    // The earlier case's claims (x1, u-2's) are answered too: only the y pods are looked at.
    const ys = async (at: number) => {
      const { claimed } = await sent.inherited(job('9', 0, false), owners, at);
      return claimed.filter((pod) => pod.uid.startsWith('y'));
    };
    expect(await ys(now)).toEqual([{ uid: 'y1', since: now }]);
    // At choice, beside the selector's own entries.
    const listed = await sent.list(job('10', 0, false), owners, now);
    const uids = listed.map((pod) => pod.uid).filter((uid) => uid.startsWith('y'));
    expect(uids.sort()).toEqual(['y1', 'y4']);
    // A pod the job inherited as a replacement holds an older slot: its claim says so.
    const heir = of('u-4', '11');
    await sent.keepInherited(heir, { taken: ['y1'], owed: 0, theirs: ['y5'] });
    await sent.record(heir, [controlled('y5')], { now });
    expect(await ys(now)).toContainEqual({ uid: 'y5', since: now, replacement: true });
    // Past the age limit (a minute here), a claim is nobody's.
    expect(await ys(now + 61_000)).toEqual([]);
  });

  it("carries a job's originals once, on the first entry it records, to a later run's choice", async () => {
    const now = Math.floor(Date.now() / 1000) * 1000;
    const data = {
      ...job('13', 0, false),
      selector: { ...job('13', 0).selector, labels: { app: 'o' } },
    };
    await sent.keepInherited(data, { taken: [], owed: 0, theirs: [] }, ['o1', 'o2', 'o3']);
    await sent.record(data, [controlled('o1')], { now });
    await sent.record(data, [controlled('o2')], { now });
    const later = { ...data, runKey: '14' };
    expect(await sent.list(later, [], now)).toEqual([
      { uid: 'o1', since: now, originals: ['o1', 'o2', 'o3'] },
      { uid: 'o2', since: now },
    ]);
    // Nothing to keep: nothing stored, what an earlier attempt kept cleared.
    await sent.keepInherited(later, { taken: [], owed: 0, theirs: [] }, ['o3']);
    await sent.keepInherited(later, { taken: [], owed: 0, theirs: [] });
    await sent.record(later, [controlled('o3')], { now });
    expect((await sent.list(later, [], now)).map((pod) => pod.originals?.length ?? 0)).toEqual([
      3, 0, 0,
    ]);
  });

  it('holds back a chunk once another directive claimed more than its batch gate counted', async () => {
    const now = Math.floor(Date.now() / 1000) * 1000;
    const data = job('12', 2, false);
    const intruder = { ...data, directive: { ...data.directive, name: 'intruder', uid: 'u-5' } };
    const owners = [`${owner.kind}/${owner.name}`];
    const { fence } = await sent.inherited(data, owners, now);
    // Both gates opened: the other directive's batch went first.
    await sent.record(intruder, [controlled('z1')], { now });
    expect(await sent.record(data, [controlled('z2'), controlled('z3')], { now, fence })).toEqual({
      taken: [],
      held: ['z2', 'z3'],
      heldBy: '2',
      claimed: new Map(),
    });
    // Counted at the next gate, the claim lets the chunk go (and a pod it claimed goes whatever).
    const { fence: next } = await sent.inherited(data, owners, now);
    expect((await sent.record(data, [controlled('z2')], { now, fence: next })).held).toEqual([]);
    await sent.record(intruder, [controlled('z4')], { now });
    expect((await sent.record(data, [controlled('z2')], { now, fence: next })).held).toEqual([]);
    expect((await sent.record(data, [controlled('z3')], { now, fence: next })).held).toEqual([
      'z3',
    ]);
  });
});
