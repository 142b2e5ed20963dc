import { expect } from 'vitest';
import type { Harness } from './harness.js';

/** The uids of every pod the simulator holds now under `namespace` (the originals, before a run). */
export function podUids(h: Harness, namespace: string, labels: Record<string, string> = {}) {
  return h.sim.listPods(namespace, labels).map((pod) => pod.metadata.uid);
}

/**
 * DESIGN §4: every original pod deleted exactly once (one DELETE request, one deletion), and no
 * other pod (a replacement) deleted or sent a DELETE at all.
 */
export function expectEachDeletedOnce(
  h: Harness,
  originals: readonly string[],
  /** Originals of other runs on the same simulator, checked by those runs. */
  others: readonly string[] = [],
): void {
  const deletions = h.sim.deletionsByUid();
  const requests = h.sim.deleteRequestsByUid();
  const twice = originals.filter((uid) => deletions.get(uid) !== 1 || requests.get(uid) !== 1);
  const known = new Set([...originals, ...others]);
  const strangers = [...requests.keys()].filter((uid) => !known.has(uid));
  expect({ notExactlyOnce: twice, replacementsTouched: strangers }).toEqual({
    notExactlyOnce: [],
    replacementsTouched: [],
  });
}
