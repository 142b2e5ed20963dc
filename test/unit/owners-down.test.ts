// The arithmetic of a selector's pods down against their owners' scale (owners-down.ts, scale-down.ts).
import { describe, expect, it } from 'vitest';
import { ownerDown, shortOf } from '../../src/workflow/owners-down.js';
import { missesNothing, scaleCandidates } from '../../src/workflow/scale-down.js';

describe("pods down against their owner's scale", () => {
  it('counts what the owner misses beyond what it missed before the first batch', () => {
    // 8 wanted, one crash-looping before the first batch: it never holds a batch.
    expect(ownerDown({ want: 8, healthy: 7, short: 1, chosenDown: 1 })).toBe(0);
    // One bounced, not replaced yet.
    expect(ownerDown({ want: 8, healthy: 6, short: 1, chosenDown: 1 })).toBe(1);
  });

  it("a scale-up's pods are wanted before they are Ready", () => {
    // 8 → 14 just after the first eviction: 6 new pods Ready, the replacement not yet.
    expect(ownerDown({ want: 14, healthy: 13, short: 0, chosenDown: 1 })).toBe(1);
    expect(ownerDown({ want: 14, healthy: 14, short: 0, chosenDown: 1 })).toBe(0);
  });

  it("counts at most the owner's chosen pods down: others' disruptions are not waited for", () => {
    expect(ownerDown({ want: 8, healthy: 4, short: 0, chosenDown: 1 })).toBe(1);
  });

  it('a scale-down not carried out before the first batch offsets nothing and holds nothing', () => {
    // Scaled 8 → 6 while its 8 pods were all Ready: nothing missed, not -2 (which would have the
    // selector wait, once the surplus is gone, for 2 pods the owner will never make).
    const short = shortOf(6, 8);
    expect(short).toBe(0);
    // Once the surplus is gone, one bounced and replaced: nothing down.
    expect(ownerDown({ want: 6, healthy: 6, short, chosenDown: 1 })).toBe(0);
  });
});

describe('an owner scaled down mid-run owes no replacement', () => {
  const rs = { kind: 'ReplicaSet', name: 'web-1' };
  const chosen = (count: number, owner: { kind: string; name: string } | null = rs) =>
    Array.from({ length: count }, (_, i) => ({
      name: `web-${i}`,
      uid: `u${i}`,
      ...(owner === null ? {} : { owner }),
    }));
  const pod = (uid: string, ready = true, owner: { kind: string; name: string } = rs) => ({
    name: uid,
    uid,
    createdAt: new Date(0),
    ready,
    terminating: false,
    owner,
  });
  const bounced = new Set(['u0', 'u1', 'u2']);

  it('misses nothing at or above its scale with Ready pods, or once it is gone', () => {
    // 12 -> 5 after 3 of 12 were bounced: the 5 it keeps are Ready.
    expect(missesNothing(5, 5)).toBe(true);
    // The scale-down not carried out yet: its surplus is about to go, nothing is missed.
    expect(missesNothing(5, 9)).toBe(true);
    expect(missesNothing(undefined, 0)).toBe(true);
    // Not scaled down: the 3 bounced pods' replacements are still owed.
    expect(missesNothing(12, 9)).toBe(false);
    expect(missesNothing(5, 4)).toBe(false);
  });

  it('counts the bounced pods with an owner, once they are gone, and their owner’s Ready pods', () => {
    const pods = chosen(12).map((p) => pod(p.uid));
    // Not gone yet (terminating, or Ready as a lagging watch may show them): no read is spent.
    expect(scaleCandidates(chosen(12), bounced, pods)).toBeUndefined();
    const left = pods.filter((p) => !bounced.has(p.uid));
    const candidates = scaleCandidates(chosen(12), bounced, left);
    expect(candidates?.count).toBe(3);
    expect(candidates?.healthy.get('ReplicaSet/web-1')).toBe(9);
    expect([...(candidates?.owners.keys() ?? [])]).toEqual(['ReplicaSet/web-1']);
  });

  it('releases nothing for bare pods, owners of another kind, or an owner with a pod not Ready', () => {
    const pods = chosen(5)
      .map((p) => pod(p.uid))
      .filter((p) => !bounced.has(p.uid));
    expect(scaleCandidates(chosen(5, null), bounced, [])).toBeUndefined();
    expect(scaleCandidates(chosen(5, { kind: 'Job', name: 'j' }), bounced, [])).toBeUndefined();
    // A replacement made, not Ready yet: the owner misses it (no read is spent on its scale).
    expect(scaleCandidates(chosen(5), bounced, [...pods, pod('new', false)])).toBeUndefined();
    // Another owner's pod not Ready holds nothing here.
    const other = pod('other', false, { kind: 'ReplicaSet', name: 'api-1' });
    expect(scaleCandidates(chosen(5), bounced, [...pods, other])?.count).toBe(3);
  });
});
