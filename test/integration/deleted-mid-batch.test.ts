// A directive deleted while its batches go out (DESIGN §4: its chain stops bouncing and ends
// quietly), and one re-created at once under the same name (DESIGN §2: one run bounces at a time
// per directive, and no pod is sent a second DELETE). The pods' DELETEs are held in flight, so the
// deletion lands while the first batch is unanswered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';

const NS = 'midbatch';
const PODS = 8;
const HOLD_MS = 1500;

describe('a directive deleted while its batches go out', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('midbatch', {
      env: { BOUNCE_MODE: 'delete', WATCH_DIRECTIVES: 'true', ALLOWED_NAMESPACES: NS },
    });
  });
  afterAll(async () => {
    h.sim.setFaults(null);
    await h.close();
  });

  /**
   * Starts a run of `app`'s pods in two batches and answers once its first batch is in flight.
   * Bare pods: nobody replaces them, so the second batch waits for nothing but the first.
   */
  async function firstBatchInFlight(app: string): Promise<void> {
    for (let i = 0; i < PODS; i += 1) {
      h.sim.addPod({ namespace: NS, name: `${app}-${i}`, labels: { app }, ready: true });
    }
    h.sim.setFaults({ latencyMs: HOLD_MS, methods: ['DELETE'], resources: ['pods'] });
    h.sim.applyDirective(
      directive(NS, app, [
        { namespace: NS, labels: { app }, waitForReplicas: 0, maxUnavailable: PODS / 2 },
      ]),
    );
    await eventually('the first batch in flight', async () => {
      const jobs = await h.serve.queue.getJobs(['active']);
      return jobs.some((job) => job?.data.progress.inFlight?.length) ? true : undefined;
    });
  }

  /** DELETE requests per pod name (bare pods: one uid each), once no job runs any more. */
  async function settled(app: string): Promise<Map<string, number>> {
    await eventually(
      'no job running',
      async () => {
        const counts = await h.serve.queue.getJobCounts(
          'active',
          'waiting',
          'prioritized',
          'delayed',
        );
        return Object.values(counts).every((count) => count === 0) ? true : undefined;
      },
      30_000,
    );
    h.sim.setFaults(null);
    const sent = new Map<string, number>();
    for (const { method, resource, name } of h.sim.requests()) {
      if (method !== 'DELETE' || resource !== 'pods' || !name?.startsWith(`${app}-`)) continue;
      sent.set(name, (sent.get(name) ?? 0) + 1);
    }
    return sent;
  }

  it('sends no batch after the deletion', async () => {
    await firstBatchInFlight('gone');
    h.sim.deleteDirective(NS, 'gone');
    const sent = await settled('gone');
    expect(sent.size).toBe(PODS / 2);
  });

  it('sends no pod a second DELETE when it is re-created under the same name at once', async () => {
    await firstBatchInFlight('again');
    h.sim.deleteDirective(NS, 'again');
    h.sim.applyDirective(
      directive(NS, 'again', [
        { namespace: NS, labels: { app: 'again' }, waitForReplicas: 0, maxUnavailable: PODS / 2 },
      ]),
    );
    await eventually(
      'the re-created directive FINISHED',
      () => (h.sim.directiveState(NS, 'again') === 'FINISHED' ? true : undefined),
      30_000,
    );
    const sent = await settled('again');
    expect(sent.size).toBe(PODS);
    expect(Math.max(...sent.values())).toBe(1);
  });
});
