// DESIGN §4 Guarantees with maxConcurrentSelectors > 1: the pods a sibling selector sent count as
// down for a selector that chose them too, and their Ready replacements count back for it, even
// when they were created before the second of its own first bounce. [app=web] sends the web pods
// first (one worker slot, both selectors resumed in turn); [every pod] then sends its api pods in
// a later second, once the web replacements are Ready, and must go on to its web pods (already
// sent) instead of waiting for replacements of them younger than its own first bounce.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAUSED_ANNOTATION } from '../../src/directive/types.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

describe("a sibling's replacements older than the selector's first bounce", () => {
  let h: Harness;
  beforeAll(async () => {
    // One job at a time: the web selector's batch goes before the other's first. Re-checks are
    // rare, so that the resumed jobs run in the order they are woken.
    h = await startHarness('sibling-replacements-second', {
      env: { WORKER_CONCURRENCY: '1', POLL_INTERVAL_MS: '5000' },
    });
  });
  afterAll(async () => h.close());

  it('count back for the pods the sibling sent, and the run finishes', async () => {
    const namespace = 'sibling-second';
    // The web replacements are Ready more than a second after they are created: the other
    // selector's first bounce falls in a later second than their creation.
    h.sim.addWorkload({
      namespace,
      name: 'web',
      kind: 'ReplicaSet',
      labels: { app: 'web' },
      replicas: 2,
      readinessDelayMs: 1500,
    });
    h.sim.addWorkload({
      namespace,
      name: 'api',
      kind: 'StatefulSet',
      labels: { app: 'api' },
      replicas: 2,
      readinessDelayMs: 200,
    });
    const originals = podUids(h, namespace, {});
    const selector = { namespace, waitForReplicas: 0, maxUnavailable: 2, bounceMode: 'evict' };
    const manifest = directive(namespace, 'certs', [
      { ...selector, labels: { app: 'web' } },
      { ...selector, labels: {} },
    ]);
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = 2;
    const { metadata } = manifest as { metadata: Record<string, unknown> };
    // Paused: both selectors choose their pods and park before their first batch.
    h.sim.applyDirective({
      ...manifest,
      metadata: { ...metadata, annotations: { [PAUSED_ANNOTATION]: 'true' } },
    });
    expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
    await eventually('both selectors parked while paused', () =>
      h.work!.wakeups.size >= 2 ? true : undefined,
    );
    h.sim.applyDirective({ ...manifest, metadata: { ...metadata, annotations: {} } });
    await waitForState(h, namespace, 'certs', 'FINISHED');
    expectEachDeletedOnce(h, originals, []);
  }, 60_000);
});
