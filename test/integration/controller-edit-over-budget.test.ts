// Controller mode (DESIGN §4) with the run budget spent: a spec edited mid-run starts no run yet
// (TooManyRuns; it starts when allowed), so the run going must not end as if superseded, leaving a
// status that tells a run nobody is doing. It ends FAILED and says when the new spec's run starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUED_AT_ANNOTATION } from '../../src/directive/types.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';
import { LogCapture } from '../support/log-capture.js';

const NS = 'budget-edit';
const selector = (soakSeconds: number) => ({
  namespace: NS,
  labels: { app: 'web' },
  maxUnavailable: 1,
  waitForReplicas: 0,
  soakSeconds,
});
const manifest = (soakSeconds: number, issuedAt?: string) => ({
  ...directive(NS, 'certs', [selector(soakSeconds)]),
  metadata: {
    namespace: NS,
    name: 'certs',
    ...(issuedAt === undefined ? {} : { annotations: { [ISSUED_AT_ANNOTATION]: issuedAt } }),
  },
});

describe('controller mode: a spec edited mid-run when MAX_RUNS_PER_HOUR is spent', () => {
  let h: Harness;
  const logs = new LogCapture();
  beforeAll(async () => {
    h = await startHarness('controller-edit-budget', {
      env: { WATCH_DIRECTIVES: 'true', MAX_RUNS_PER_HOUR: '2', LOG_LEVEL: 'info' },
      logDestination: logs,
    });
  });
  afterAll(async () => h.close());

  const statusOf = () => h.sim.getDirective(NS, 'certs')?.status as any;
  const deleted = () => h.sim.deletedPods().filter((pod) => pod.namespace === NS);

  it('ends the running run FAILED with the cause, and it bounces nothing more', async () => {
    // Slow replacements: each run is still between batches when the next thing happens.
    h.sim.addWorkload({
      namespace: NS,
      name: 'web',
      kind: 'ReplicaSet',
      labels: { app: 'web' },
      replicas: 6,
      readinessDelayMs: 700,
    });
    h.sim.applyDirective(manifest(0));
    await eventually('the first run to bounce', () => (deleted().length > 0 ? true : undefined));

    // The second run of the hour: a later issuance named by the annotation.
    const issuedAt = new Date().toISOString();
    h.sim.applyDirective(manifest(0, issuedAt));
    const before = deleted().length;
    await eventually('the second run to bounce', () =>
      statusOf()?.issuedAt !== undefined && deleted().length > before ? true : undefined,
    );

    // Generation 2, while the second run bounces: its run is refused for now (TooManyRuns).
    const edited = h.sim.applyDirective(manifest(1, issuedAt));
    const editedAt = Date.now();
    expect(edited.metadata.generation).toBe(2);
    await eventually('the TooManyRuns Event', () =>
      h.sim
        .events()
        .some((e: any) => e.reason === 'TooManyRuns' && e.involvedObject?.namespace === NS)
        ? true
        : undefined,
    );

    const failed = await eventually(
      'the running run to end FAILED',
      () => (statusOf()?.state === 'FAILED' ? statusOf() : undefined),
      10_000,
    );
    expect(failed.observedGeneration).toBe(1);
    expect(failed.error).toMatch(
      /^selector 0: the directive's spec changed \(generation 2\) during the run; its run waits for MAX_RUNS_PER_HOUR and starts at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    const conditions = Object.fromEntries(failed.conditions.map((c: any) => [c.type, c]));
    expect(conditions.Stalled?.status).toBe('True');
    expect(conditions.Reconciling).toBeUndefined();
    expect(conditions.Ready).toMatchObject({ status: 'False', reason: 'Failed' });

    // Nothing bounced after the edit (a batch sent just before it may still be answered), and
    // no pod twice.
    expect(deleted().filter((pod) => pod.at > editedAt + 100)).toEqual([]);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
    const view = await h.get(`/v1/directives/${NS}/certs`);
    expect(view.body.inProgress).toBe(false);
  });

  it('logs the refused run as one line that names it, without a stack', () => {
    const refusals = logs
      .lines()
      .map((line) => JSON.parse(line))
      .filter((line) => line.component === 'controller' && line.directive === `${NS}/certs`)
      .filter((line) => String(line.msg).includes('MAX_RUNS_PER_HOUR'));
    expect(refusals.length).toBeGreaterThan(0);
    for (const line of refusals) {
      expect(line).toMatchObject({ directive: `${NS}/certs`, generation: 2 });
      expect(line.retryAfterSeconds).toBeGreaterThan(0);
      expect(line.err).toBeUndefined();
    }
  });
});
