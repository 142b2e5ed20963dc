// DESIGN §4 Guarantees with maxConcurrentSelectors > 1: which selectors of a directive may choose
// the same pods (and so count each other's bounces against their maxUnavailable).
import { describe, expect, it } from 'vitest';
import { overlapsAnother } from '../../src/workflow/sibling-down.js';

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
