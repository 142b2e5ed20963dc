// DESIGN §4: each wait has a timeout, a timeout fails the job. A PodDisruptionBudget that never
// allows an eviction fails the run READINESS_TIMEOUT_SECONDS after its first refusal, though
// every re-check sends the evictions again; one that allows within it lets the run go on, and a
// pod evicted starts the budget's wait afresh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const TIMEOUT_S = 4;
const POLL_MS = 100;

describe('evictions a PodDisruptionBudget refuses', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('evict-budget-timeout', {
      env: { READINESS_TIMEOUT_SECONDS: String(TIMEOUT_S), POLL_INTERVAL_MS: String(POLL_MS) },
    });
  });
  afterAll(async () => h.close());

  const evictions = (namespace: string) =>
    h.sim.requests().filter((r) => r.subresource === 'eviction' && r.namespace === namespace);

  function workload(namespace: string, name: string, replicas: number, minAvailable: number) {
    const labels = { app: name };
    h.sim.addWorkload({
      namespace,
      name,
      kind: 'ReplicaSet',
      labels,
      replicas,
      readinessDelayMs: 500,
      terminationGraceMs: 50,
    });
    h.sim.addPodDisruptionBudget({ namespace, name, labels, minAvailable });
    h.sim.applyDirective(
      directive(namespace, name, [{ namespace, labels, maxUnavailable: 1, bounceMode: 'evict' }]),
    );
    return labels;
  }

  it('that never allows: the run fails at the timeout, naming the wait, and stops asking', async () => {
    const namespace = 'locked';
    const labels = workload(namespace, 'gateway', 4, 4);
    const originals = podUids(h, namespace, labels);
    expect((await h.post({ directive: { namespace, name: 'gateway' } })).status).toBe(202);

    const failed = await waitForState(h, namespace, 'gateway', 'FAILED', 8 * TIMEOUT_S * 1000);
    expect(failed.status.error).toBe(
      `selector 0: timed out after ${TIMEOUT_S}s waiting for a PodDisruptionBudget in ${namespace} to allow evicting 1 pod(s)`,
    );
    const stalled = failed.status.conditions.find((c: any) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'Failed' });

    const sent = evictions(namespace);
    console.log(`PDB never allowing, timeout ${TIMEOUT_S}s: ${sent.length} eviction requests`);
    // Every one refused, retried, at most once per re-check (POLL_INTERVAL_MS) until the timeout.
    expect(sent.every((r) => r.status === 429)).toBe(true);
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.length).toBeLessThanOrEqual((TIMEOUT_S * 1000) / POLL_MS + 5);
    expect(podUids(h, namespace, labels)).toEqual(originals);
    // Failed, the job sends nothing more.
    await new Promise((resolve) => setTimeout(resolve, 5 * POLL_MS));
    expect(evictions(namespace)).toHaveLength(sent.length);
  });

  it('that allows after a while, twice: each refusal is timed from its own start', async () => {
    const namespace = 'paced';
    const labels = workload(namespace, 'gateway', 3, 3);
    const originals = podUids(h, namespace, labels);
    const hold = 0.6 * TIMEOUT_S * 1000;
    const budget = (minAvailable: number) =>
      h.sim.addPodDisruptionBudget({ namespace, name: 'gateway', labels, minAvailable });
    const refusedAfter = (evicted: number) =>
      eventually(`a refusal after ${evicted} eviction(s)`, () => {
        const sent = evictions(namespace);
        const done = sent.filter((r) => r.status < 300).length;
        return done === evicted && sent.at(-1)?.status === 429 ? true : undefined;
      });
    expect((await h.post({ directive: { namespace, name: 'gateway' } })).status).toBe(202);

    // Refused for 0.6 of the timeout, then one pod may go; refused again as long, then allowed:
    // 1.2 timeouts refused in all, never one whole timeout in a row.
    await refusedAfter(0);
    await new Promise((resolve) => setTimeout(resolve, hold));
    budget(2);
    await eventually('the first eviction', () =>
      evictions(namespace).some((r) => r.status < 300) ? true : undefined,
    );
    budget(3);
    await refusedAfter(1);
    await new Promise((resolve) => setTimeout(resolve, hold));
    budget(2);

    await waitForState(h, namespace, 'gateway', 'FINISHED', 8 * TIMEOUT_S * 1000);
    const landed = h.sim.deletionsByUid();
    expect(originals.filter((uid) => landed.get(uid) !== 1)).toEqual([]);
    expect(evictions(namespace).filter((r) => r.status < 300)).toHaveLength(originals.length);
  });
});
