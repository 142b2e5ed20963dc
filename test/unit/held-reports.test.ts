// What a run's progress costs in status writes and Events, counted from the simulator's request
// log: moments go through HeldReports, StatusReporter (on a clock the test moves) and the real
// StatusWriter and client. A batch sent and the wait that follows it are one write, not two.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import { directiveManifest } from '../../src/stack/sim-stack.js';
import type { Counts, RunRef } from '../../src/status/moments.js';
import { StatusReporter, type Target } from '../../src/status/reporter.js';
import { accepted } from '../../src/status/moments.js';
import type { StatusWriter } from '../../src/status/writer.js';
import { startStatusFixture, type StatusFixture } from '../support/status-fixture.js';
import { HeldReports } from '../../src/workflow/held-reports.js';

const NS = 'held';
const PODS = 3;
const selectors = ['a', 'b'].map((app) => ({
  namespace: NS,
  labels: { app },
  waitForReplicas: PODS,
}));

describe('HeldReports', () => {
  let sim: Simulator;
  let writer: StatusWriter;
  let clock = 0;
  let fixture: StatusFixture;
  beforeAll(async () => {
    fixture = await startStatusFixture(17);
    ({ sim, writer } = fixture);
  });
  afterAll(async () => fixture.close());
  beforeEach(() => {
    clock = 1_000_000;
    sim.resetRequests();
  });

  const requests = (resource: string, method: string) =>
    sim.requests().filter((r) => r.resource === resource && r.method === method);

  /** A directive whose run was accepted (PENDING, as the api writes it), and a reporter for it. */
  async function begin(name: string) {
    const created = sim.applyDirective(directiveManifest(NS, name, selectors));
    const target: Target = {
      namespace: NS,
      name,
      uid: created.metadata.uid,
      generation: created.metadata.generation,
    };
    await writer.apply(target, accepted(target.generation, selectors.length));
    const reporter = new StatusReporter(writer, () => clock);
    const runOf = (selectorIndex: number): RunRef => ({
      generation: target.generation,
      selectorIndex,
      selectorCount: selectors.length,
      selector: selectors[selectorIndex]!,
    });
    const job = (selectorIndex: number) =>
      new HeldReports((moment) => reporter.report(target, runOf(selectorIndex), moment));
    return { job, readyReason: () => ready(sim.getDirective(NS, name)?.status) };
  }

  function ready(status: any): string | undefined {
    return status?.conditions?.find((c: any) => c.type === 'Ready')?.reason;
  }

  /**
   * One selector as the workflow reports it when each replacement takes 10 s to be Ready: a batch
   * of one pod, the wait for its replacement (reported again at a re-check 2.5 s later), the next
   * batch when it is Ready; then the wait for waitForReplicas.
   */
  async function selector(reports: HeldReports, index: number): Promise<void> {
    const names = [0, 1, 2].map((pod) => `pod-${index}-${pod}`);
    await reports.report({ kind: 'chosen', names });
    for (let bounced = 1; bounced <= PODS; bounced += 1) {
      const counts: Counts = { bounced, chosen: PODS, ready: bounced - 1, wanted: bounced };
      await reports.report({ kind: 'batchBounced', counts: { bounced, chosen: PODS } });
      await reports.report({ kind: 'waiting', counts });
      clock += 2500;
      await reports.report({ kind: 'waiting', counts });
      clock += 7500;
    }
    await reports.settle();
  }

  it('writes a 2-selector run with 10 s waits in one status write per wait, Events for transitions only', async () => {
    const { job } = await begin('slow-waits');
    await selector(job(0), 0);
    await selector(job(1), 1);
    await job(1).report({ kind: 'finished' });
    // PENDING; per selector its choice (the first also BOUNCING_PODS) and one write per wait
    // (three); FINISHED. No batch has a write of its own: the wait that follows it says more.
    expect(requests('podbouncedirectives', 'PATCH')).toHaveLength(1 + 2 * (1 + PODS) + 1);
    // Accepted; Bouncing (with selector 0's pods); PodsSelected for selector 1; Finished.
    expect(requests('events', 'POST')).toHaveLength(4);
  });

  it('lets back-to-back batches through, rate-limited, and writes a held batch when the job ends', async () => {
    const { job, readyReason } = await begin('back-to-back');
    const reports = job(0);
    await reports.report({ kind: 'chosen', names: ['x', 'y', 'z'] });
    clock += 2500;
    await reports.report({ kind: 'batchBounced', counts: { bounced: 1, chosen: 3 } });
    const beforeSecond = requests('podbouncedirectives', 'PATCH').length;
    // The next batch went out at once: its count is written (the window is open).
    expect(await reports.report({ kind: 'batchBounced', counts: { bounced: 2, chosen: 3 } })).toBe(
      'written',
    );
    expect(requests('podbouncedirectives', 'PATCH')).toHaveLength(beforeSecond + 1);
    clock += 2500;
    // The last batch is held; nothing follows it in this job: settle writes it.
    expect(await reports.report({ kind: 'batchBounced', counts: { bounced: 3, chosen: 3 } })).toBe(
      'deferred',
    );
    await reports.settle();
    expect(requests('podbouncedirectives', 'PATCH')).toHaveLength(beforeSecond + 2);
    expect(readyReason()).toBe('Bouncing');
    // Progress records no Event: Accepted and Bouncing only.
    expect(requests('events', 'POST')).toHaveLength(2);
  });
});
