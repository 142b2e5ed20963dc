import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../../src/kube/pods.js';
import {
  inheritedAtChoice,
  inheritedDown,
  originalsAtChoice,
  parseSent,
  withClaims,
} from '../../src/workflow/others-down.js';
import { claimOwners } from '../../src/workflow/pod-claims.js';

const SECOND = 1_000_000_000_000;
const pod = (uid: string, created: number, ready = true, terminating = false): PodInfo => ({
  name: uid,
  uid,
  createdAt: new Date(created),
  ready,
  terminating,
  controlled: true,
});

describe('what an older run took down, as a newer run counts it', () => {
  it('owes a replacement for each pod another run sent that this run did not choose', () => {
    const sent = [
      { uid: 'a', since: SECOND },
      { uid: 'b', since: SECOND },
    ];
    const chosen = [pod('c', SECOND - 60_000), pod('d', SECOND - 60_000)];
    expect(inheritedAtChoice(sent, chosen)).toEqual({
      taken: ['a', 'b'],
      owed: 2,
      theirs: [],
      since: SECOND,
    });
  });

  it('owes nothing for its own pods, nor for pods another run recorded but never sent', () => {
    const chosen = [pod('a', SECOND - 60_000)];
    expect(inheritedAtChoice([{ uid: 'a', since: SECOND }], chosen)).toEqual({
      taken: [],
      owed: 0,
      theirs: [],
    });
  });

  it('counts a replacement it chose itself as down only while it is not Ready', () => {
    const sent = [{ uid: 'a', since: SECOND }];
    const replacement = pod('r', SECOND + 200, false);
    const inherited = inheritedAtChoice(sent, [replacement, pod('c', SECOND - 60_000)]);
    expect(inherited).toEqual({ taken: ['a'], owed: 0, theirs: ['r'], since: SECOND });
    expect(inheritedDown(inherited, new Set(), [replacement])).toEqual({ owed: 0, unready: 1 });
    expect(inheritedDown(inherited, new Set(), [{ ...replacement, ready: true }]).unready).toBe(0);
    // Once this run bounced it, its own count has it.
    expect(inheritedDown(inherited, new Set(['r']), [replacement]).unready).toBe(0);
  });

  it('ignores a pod not Ready for reasons of its own (older than any bounce)', () => {
    const sent = [{ uid: 'a', since: SECOND }];
    const crashLooping = pod('c', SECOND - 60_000, false);
    const inherited = inheritedAtChoice(sent, [crashLooping]);
    expect(inheritedDown(inherited, new Set(), [crashLooping])).toEqual({ owed: 1, unready: 0 });
  });

  it('owes a slot once when a replacement was bounced again by a later run', () => {
    // a was sent; a2, its replacement, was chosen and sent by the next run; a3 is chosen now.
    const sent = [
      { uid: 'a', since: SECOND },
      { uid: 'a2', since: SECOND + 2000, replacement: true },
    ];
    const chosen = [pod('a3', SECOND + 2500), pod('c', SECOND - 60_000)];
    expect(inheritedAtChoice(sent, chosen)).toEqual({
      taken: ['a', 'a2'],
      owed: 0,
      theirs: ['a3'],
      since: SECOND,
    });
    // a3 not created yet: the one slot is owed once.
    expect(inheritedAtChoice(sent, [pod('c', SECOND - 60_000)]).owed).toBe(1);
  });
});

describe('pods created in the second another run first sent a bounce in', () => {
  // A workload of a, b, c, d created in SECOND; its run, accepted then, sent a and b in it.
  const older = pod('older', SECOND - 60_000);
  const [a, b, c, d] = [pod('a', SECOND), pod('b', SECOND), pod('c', SECOND), pod('d', SECOND)];

  it("are the sending run's originals when it chose them in the second it was accepted in", () => {
    expect(
      originalsAtChoice([older, a, b, c, d], { taken: [], owed: 0, theirs: [] }, SECOND),
    ).toEqual(['a', 'b', 'c', 'd']);
    // A pod it took for another run's replacement is none of its originals.
    const inherited = { taken: ['x'], owed: 0, theirs: ['d'], since: SECOND };
    expect(originalsAtChoice([a, d], inherited, SECOND)).toEqual(['a']);
  });

  it("owe their slots when they are that run's originals, not its replacements", () => {
    const sent = [
      { uid: 'a', since: SECOND, originals: ['a', 'b', 'c', 'd'] },
      { uid: 'b', since: SECOND },
    ];
    const inherited = inheritedAtChoice(sent, [c, d]);
    expect(inherited).toEqual({ taken: ['a', 'b'], owed: 2, theirs: [], since: SECOND });
    // Ready as they are, they offset nothing: both slots wait for Ready replacements.
    expect(inheritedDown(inherited, new Set(), [c, d])).toEqual({ owed: 2, unready: 0 });
    // Without the record, they would cancel the slots: the two sent could go with two more.
    expect(
      inheritedAtChoice(
        sent.map(({ uid, since }) => ({ uid, since })),
        [c, d],
      ).owed,
    ).toBe(0);
  });

  it('still fill a slot when they are its replacements, created in that second too', () => {
    const sent = [
      { uid: 'a', since: SECOND, originals: ['a', 'b', 'c', 'd'] },
      { uid: 'b', since: SECOND },
    ];
    const replacement = pod('a2', SECOND + 300, false);
    expect(inheritedAtChoice(sent, [c, d, replacement])).toEqual({
      taken: ['a', 'b'],
      owed: 1,
      theirs: ['a2'],
      since: SECOND,
    });
  });

  it('are read back from the entry that carries them', () => {
    const raw = JSON.stringify([
      { u: 'a', s: SECOND, p: ['a', 'c'] },
      { u: 'b', s: SECOND, r: 1 },
    ]);
    expect(parseSent(raw, SECOND - 60_000)).toEqual([
      { uid: 'a', since: SECOND, originals: ['a', 'c'] },
      { uid: 'b', since: SECOND, replacement: true },
    ]);
  });
});

describe("what another directive's runs took down since a run chose", () => {
  const kept = inheritedAtChoice([{ uid: 'a', since: SECOND }], [pod('c', SECOND - 60_000)]);

  it('owes a replacement for each pod claimed since, once, and never takes one for a replacement', () => {
    const claimed = [
      { uid: 'a', since: SECOND },
      { uid: 'd', since: SECOND + 3000 },
      { uid: 'd2', since: SECOND + 5000, replacement: true },
    ];
    expect(withClaims(kept, claimed, new Set())).toEqual({
      taken: ['a', 'd', 'd2'],
      owed: 2,
      theirs: [],
      since: SECOND,
    });
  });

  it('leaves to its own count the pods it bounced or took as claimed', () => {
    expect(withClaims(kept, [{ uid: 'c', since: SECOND + 3000 }], new Set(['c']))).toBe(kept);
  });

  it('names the owners as the claims do, once each, bare pods none', () => {
    const owned = { owner: { kind: 'ReplicaSet', name: 'web-1' } };
    expect(claimOwners([owned, { ...owned }, {}])).toEqual(['ReplicaSet/web-1']);
  });
});
