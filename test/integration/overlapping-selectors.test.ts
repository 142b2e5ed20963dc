// DESIGN §4 Guarantees: each pod of a run is bounced at most once, a pod already terminating or
// gone is never sent another DELETE or eviction, also when maxConcurrentSelectors K > 1 lets
// several selectors whose labels match the same pods choose them side by side. Of two selectors
// racing for a pod exactly one sends; the other counts it as bounced and waits for its
// replacement, so the run still FINISHES.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApps } from '../support/workloads.js';
import { podUids } from '../support/guarantees.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

const TRIALS = 10;
const REPLICAS = 4;
const SELECTORS = 3;

describe('selectors of one run over the same pods', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('overlapping-selectors');
  });
  afterAll(async () => h.close());
  /** The originals of every trial so far: the ledger is the simulator's, shared by the trials. */
  const known = new Set<string>();

  /** One run of 3 selectors with identical labels over 4 pods, checked from the request log. */
  async function trial(name: string, limit: number, mode: 'delete' | 'evict'): Promise<void> {
    const namespace = `ns-${name}`;
    const labels = { app: 'web' };
    // Slow terminations: a pod sent a bounce stays listed, terminating, while the others choose.
    addApps(h, namespace, ['web'], {
      replicas: REPLICAS,
      readinessDelayMs: 30,
      terminationGraceMs: 200,
    });
    const originals = podUids(h, namespace, labels);
    for (const uid of originals) known.add(uid);
    // waitForReplicas 0: no barrier between them, so up to K choose and send side by side.
    const selector = { namespace, labels, waitForReplicas: 0, maxUnavailable: 1 };
    const manifest = directive(
      namespace,
      name,
      Array.from({ length: SELECTORS }, () => ({ ...selector, bounceMode: mode })),
    );
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = limit;
    h.sim.applyDirective(manifest);
    expect((await h.post({ directive: { namespace, name } })).status).toBe(202);
    const done = await waitForState(h, namespace, name, 'FINISHED');

    // From the simulator's request log: DELETEs and evictions, whatever their outcome, by uid.
    const requests = h.sim.deleteRequestsByUid();
    const twice = [...requests].filter(([uid, count]) => originals.includes(uid) && count > 1);
    // A replacement is no original: no run's to bounce.
    const strangers = [...requests.keys()].filter((uid) => !known.has(uid));
    const landed = h.sim.deletionsByUid();
    const notBounced = originals.filter((uid) => landed.get(uid) !== 1);
    expect({ twice, strangers, notBounced }, `${name}`).toEqual({
      twice: [],
      strangers: [],
      notBounced: [],
    });
    expect(done.status.podsBounced).toHaveLength(SELECTORS);
    h.sim.deleteDirective(namespace, name);
  }

  for (const limit of [2, 3]) {
    for (const mode of ['delete', 'evict'] as const) {
      it(`K = ${limit}, ${mode}: no pod is sent a second bounce, and the run finishes`, async () => {
        for (let index = 0; index < TRIALS; index += 1) {
          await trial(`k${limit}-${mode}-${index}`, limit, mode);
        }
      }, 120_000);
    }
  }
});
