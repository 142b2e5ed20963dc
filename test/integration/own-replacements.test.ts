// A run never bounces the replacements it caused: with no issuedAt, a later selector that matches
// an earlier one's pods chooses no pod created more than a second after the run was accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

describe("a run's own replacements", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('own-replacements', { env: { POLL_INTERVAL_MS: '100' } });
  });
  afterAll(async () => h.close());

  it('are not chosen by a later selector of the same run', async () => {
    h.sim.addWorkload({
      namespace: 'bookinfo',
      name: 'reviews',
      kind: 'ReplicaSet',
      labels: { app: 'reviews' },
      replicas: 2,
      readinessDelayMs: 2500,
    });
    const originals = new Set(
      h.sim.listPods('bookinfo', { app: 'reviews' }).map((p: any) => p.metadata.uid),
    );
    const created = new Map<string, number>();
    const evicted: string[] = [];
    const stop = h.sim.onPodDeleted((pod) => evicted.push(pod.uid));
    // Every pod seen during the run, with its creation time (the bounced ones are gone at the end).
    const seen = setInterval(() => {
      for (const pod of h.sim.listPods('bookinfo', { app: 'reviews' }) as any[]) {
        created.set(pod.metadata.uid, Date.parse(pod.metadata.creationTimestamp));
      }
    }, 20);
    // Two selectors over the same pods, one batch at a time: the second batch's replacement is
    // created more than a second after the run was accepted.
    const selector = {
      namespace: 'bookinfo',
      labels: { app: 'reviews' },
      maxUnavailable: 1,
      waitForReplicas: 2,
    };
    h.sim.applyDirective(directive('bookinfo', 'overlap', [selector, { ...selector }]));
    const before = Date.now();
    const accepted = await h.post({ directive: { namespace: 'bookinfo', name: 'overlap' } });
    expect(accepted.status).toBe(202);
    await waitForState(h, 'bookinfo', 'overlap', 'FINISHED', 60_000);
    stop();
    clearInterval(seen);
    const cutoff = (Math.floor(before / 1000) + 2) * 1000;
    // Every original bounced once; no pod created after the cutoff bounced at all.
    for (const uid of originals)
      expect(
        evicted.filter((each) => each === uid),
        uid,
      ).toHaveLength(1);
    const late = [...created].filter(([, at]) => at >= cutoff).map(([uid]) => uid);
    expect(late.length).toBeGreaterThan(0);
    expect(evicted.filter((uid) => late.includes(uid))).toEqual([]);
  }, 90_000);
});
