// DESIGN §4 Guarantees with maxConcurrentSelectors > 1: which selectors of a directive may choose
// the same pods (and so count each other's bounces against their maxUnavailable).
import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../../src/kube/pods.js';
import { creditOf, overlapsAnother } from '../../src/workflow/sibling-down.js';

const selector = (namespace: string, labels: Record<string, string>) => ({
  namespace,
  labels,
  waitForReplicas: 0,
});

describe('selectors that may share pods', () => {
  it('same namespace and no label asked for with two values', () => {
    const selectors = [
      selector('apps', { app: 'web' }),
      selector('apps', {}),
      selector('apps', { app: 'api', tier: 'x' }),
      selector('other', { app: 'web' }),
      selector('apps', { app: 'db' }),
    ];
    expect(selectors.map((_, index) => overlapsAnother(selectors, index))).toEqual([
      true,
      true,
      true,
      false,
      true,
    ]);
  });

  it('a mesh of distinct workloads shares nothing', () => {
    const selectors = ['a', 'b', 'c'].map((app) => selector('mesh', { app }));
    expect(selectors.some((_, index) => overlapsAnother(selectors, index))).toBe(false);
    expect(overlapsAnother([selector('apps', {})], 0)).toBe(false);
  });
});

describe("a sibling's credit", () => {
  const SECOND = Date.parse('2026-01-01T00:00:10Z');
  const owner = { kind: 'ReplicaSet', name: 'web-1' };
  const pod = (uid: string, createdAt: number, ready = true): PodInfo => ({
    name: uid,
    uid,
    createdAt: new Date(createdAt),
    ready,
    terminating: false,
    owner,
  });
  const choice = { n: 'apps', l: { app: 'web' }, m: 1, o: ['a'], b: [] };

  it("counts only the run's replacements: pods left alone as new enough replace nothing", () => {
    const first = new Map([['apps/ReplicaSet/web-1', SECOND]]);
    const pods = [
      pod('a', SECOND - 60_000),
      pod('skipped', SECOND - 5000),
      pod('same-second', SECOND + 400),
      pod('later', SECOND + 3000),
      pod('not-ready', SECOND + 3000, false),
    ];
    expect(creditOf(choice, pods, first)).toBe(2);
    // Nothing bounced yet by the run: nothing replaces anything.
    expect(creditOf(choice, pods, new Map())).toBe(0);
  });
});
