// DESIGN §4 Guarantees: no replacement pod is bounced by the run that caused it, even one created
// in the second the run was accepted (which creationTimestamp alone cannot tell from an older pod).
// Two selectors of one run over the same pods, no issuedAt, replacements created and Ready within
// milliseconds: the second selector must leave the first one's replacements alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

const SHAPES = [
  { mode: 'delete', concurrency: 1 },
  { mode: 'evict', concurrency: 1 },
  { mode: 'delete', concurrency: 2 },
  { mode: 'evict', concurrency: 2 },
] as const;
type Shape = (typeof SHAPES)[number];

/** Resolves early in a second, so that the whole first selector fits in the acceptance second. */
async function startOfASecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
}

/**
 * One run of two selectors over a fresh workload's two pods: every original bounced, no other
 * pod (every one is this run's replacement) sent a DELETE or an eviction, and the run FINISHED.
 * `start` starts the run once the directive is applied (undefined: applying it does, controller
 * mode).
 */
async function trial(
  h: Harness,
  app: string,
  kind: 'ReplicaSet' | 'StatefulSet',
  { mode, concurrency }: Shape,
  start?: () => Promise<void>,
): Promise<void> {
  h.sim.addWorkload({ namespace: 'bookinfo', name: app, kind, labels: { app }, replicas: 2 });
  const originals = new Set(
    h.sim.listPods('bookinfo', { app }).map((pod: any) => pod.metadata.uid as string),
  );
  const requestsBefore = h.sim.deleteRequestsByUid();
  const hit: string[] = [];
  const stop = h.sim.onPodDeleted((pod) => hit.push(pod.uid));
  const selector = { namespace: 'bookinfo', labels: { app }, bounceMode: mode };
  const manifest = directive('bookinfo', app, [
    { ...selector, maxUnavailable: 1, waitForReplicas: 2 },
    { ...selector, maxUnavailable: '100%', waitForReplicas: 2 },
  ]);
  (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = concurrency;
  if (start === undefined) await startOfASecond();
  h.sim.applyDirective(manifest);
  await start?.();
  await waitForState(h, 'bookinfo', app, 'FINISHED', 30_000);
  stop();
  const what = `${app}: ${kind}, ${mode}, K=${concurrency}`;
  expect(
    hit.filter((uid) => !originals.has(uid)),
    what,
  ).toEqual([]);
  const requested = [...h.sim.deleteRequestsByUid().keys()].filter(
    (uid) => !requestsBefore.has(uid),
  );
  expect(
    requested.filter((uid) => !originals.has(uid)),
    what,
  ).toEqual([]);
  expect(
    [...originals].filter((uid) => !hit.includes(uid)),
    what,
  ).toEqual([]);
}

/** Each mode and concurrency meets both kinds (a StatefulSet's replacement reuses the name). */
function kindOf(round: number, index: number): 'ReplicaSet' | 'StatefulSet' {
  return (round + index) % 2 === 0 ? 'ReplicaSet' : 'StatefulSet';
}

describe("a run's own replacements, created in the second it was accepted", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('own-replacements-second', { env: { POLL_INTERVAL_MS: '20' } });
  });
  afterAll(async () => h.close());

  it('are never bounced by a later selector of a referenced run, which finishes', async () => {
    for (let round = 0; round < 3; round += 1) {
      for (const [index, shape] of SHAPES.entries()) {
        const app = `by-reference-${round}-${index}`;
        await trial(h, app, kindOf(round, index), shape, async () => {
          await startOfASecond();
          const accepted = await h.post({ directive: { namespace: 'bookinfo', name: app } });
          expect(accepted.status).toBe(202);
        });
      }
    }
  }, 240_000);
});

describe("a run's own replacements in controller mode", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('own-replacements-ctl', {
      env: { POLL_INTERVAL_MS: '20', WATCH_DIRECTIVES: 'true' },
    });
  });
  afterAll(async () => h.close());

  it('are never bounced by a later selector of a run an applied directive started', async () => {
    for (const [index, shape] of SHAPES.entries()) {
      await trial(h, `applied-${index}`, kindOf(1, index), shape);
    }
  }, 120_000);
});
