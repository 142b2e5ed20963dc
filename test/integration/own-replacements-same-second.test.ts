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
const ROUNDS = 3;

/** Resolves early in a second, so that the whole first selector fits in the acceptance second. */
async function startOfASecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
}

describe("a run's own replacements, created in the second it was accepted", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('own-replacements-second', { env: { POLL_INTERVAL_MS: '20' } });
  });
  afterAll(async () => h.close());

  it('are never bounced by a later selector of the same run, and the run finishes', async () => {
    let trial = 0;
    const everyOriginal = new Set<string>();
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [index, { mode, concurrency }] of SHAPES.entries()) {
        trial += 1;
        // Each mode and concurrency meets both kinds (a StatefulSet's replacement reuses the name).
        const kind = (round + index) % 2 === 0 ? 'ReplicaSet' : 'StatefulSet';
        const app = `same-second-${trial}`;
        h.sim.addWorkload({
          namespace: 'bookinfo',
          name: app,
          kind,
          labels: { app },
          replicas: 2,
          readinessDelayMs: 0,
        });
        const originals = new Set(
          h.sim.listPods('bookinfo', { app }).map((pod: any) => pod.metadata.uid as string),
        );
        const hit: string[] = [];
        const stop = h.sim.onPodDeleted((pod) => hit.push(pod.uid));
        const selector = { namespace: 'bookinfo', labels: { app }, bounceMode: mode };
        const manifest = directive('bookinfo', app, [
          { ...selector, maxUnavailable: 1, waitForReplicas: 2 },
          { ...selector, maxUnavailable: '100%', waitForReplicas: 2 },
        ]);
        (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = concurrency;
        h.sim.applyDirective(manifest);
        await startOfASecond();
        const accepted = await h.post({ directive: { namespace: 'bookinfo', name: app } });
        expect(accepted.status).toBe(202);
        await waitForState(h, 'bookinfo', app, 'FINISHED', 30_000);
        stop();
        const what = `trial ${trial}: ${kind}, ${mode}, K=${concurrency}`;
        // Only this run makes new pods here: every pod that is no original is its replacement.
        expect(
          hit.filter((uid) => !originals.has(uid)),
          what,
        ).toEqual([]);
        // Nor was one sent a DELETE or an eviction that did not land.
        for (const uid of originals) everyOriginal.add(uid);
        const requested = [...h.sim.deleteRequestsByUid().keys()];
        expect(
          requested.filter((uid) => !everyOriginal.has(uid)),
          what,
        ).toEqual([]);
        // The originals were bounced (the run did its work).
        expect(
          [...originals].filter((uid) => !hit.includes(uid)),
          what,
        ).toEqual([]);
      }
    }
  }, 240_000);
});
