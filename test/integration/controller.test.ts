// Controller mode (DESIGN §4): with WATCH_DIRECTIVES=true the worker watches the directives of
// ALLOWED_NAMESPACES and starts their runs as a posted watch event would, with no event at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUED_AT_ANNOTATION } from '../../src/directive/types.js';
import {
  ALL_AT_ONCE,
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { addApps } from '../support/workloads.js';

const NS = 'ctl';
const CONTROLLER = { ...ALL_AT_ONCE, WATCH_DIRECTIVES: 'true', ALLOWED_NAMESPACES: `${NS},other` };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const eventsOf = (h: Harness, name: string, reason: string) =>
  h.sim
    .events()
    .filter((event: any) => event.reason === reason && event.involvedObject?.name === name);
const onceEach = (h: Harness) =>
  expect([...h.sim.deletionsByUid().values()].every((count) => count === 1)).toBe(true);
const withAnnotation = (name: string, app: string, value: string) => ({
  ...directive(NS, name, [{ namespace: NS, labels: { app } }]),
  metadata: { namespace: NS, name, annotations: { [ISSUED_AT_ANNOTATION]: value } },
});

describe('controller mode', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('controller', { env: { ...CONTROLLER, MAX_RUNS_PER_HOUR: '2' } });
  });
  afterAll(async () => h.close());

  it('runs a directive created or edited in the cluster, with no event posted', async () => {
    addApps(h, NS, ['web'], { replicas: 2 });
    addApps(h, NS, ['api'], { replicas: 1 });
    h.sim.applyDirective(directive(NS, 'created', [{ namespace: NS, labels: { app: 'web' } }]));
    const first = await waitForState(h, NS, 'created', 'FINISHED');
    expect(first.status.observedGeneration).toBe(1);
    expect(h.sim.deletedPods()).toHaveLength(2);

    // The same path as a posted watch event: that event is now a duplicate of the run.
    const posted = await h.post({ type: 'MODIFIED', object: h.sim.getDirective(NS, 'created') });
    expect(posted.body).toMatchObject({ duplicate: true, generation: 1 });

    h.sim.applyDirective(directive(NS, 'created', [{ namespace: NS, labels: { app: 'api' } }]));
    const second = await waitForState(h, NS, 'created', 'FINISHED');
    expect(second.metadata.generation).toBe(2);
    expect(second.status.podsBounced).toHaveLength(1);
    expect(h.sim.deletedPods()).toHaveLength(3);
    onceEach(h);
  });

  it('starts a second round when the issued-at annotation moves on, within the run budget', async () => {
    addApps(h, NS, ['db'], { replicas: 1 });
    await sleep(5);
    const round = async (): Promise<string> => {
      const at = new Date().toISOString();
      await sleep(5);
      h.sim.applyDirective(withAnnotation('rounds', 'db', at));
      await eventually(`the round of ${at}`, () => {
        const status = h.sim.getDirective(NS, 'rounds')?.status as any;
        return status?.state === 'FINISHED' && status.issuedAt === at ? true : undefined;
      });
      return at;
    };
    const before = h.sim.deletedPods().length;
    await round();
    const second = await round();
    expect(h.sim.getDirective(NS, 'rounds')?.metadata.generation).toBe(1);
    expect(h.sim.deletedPods().length - before).toBe(2);

    // MAX_RUNS_PER_HOUR=2: a third issuance is refused by the same budget as an event's.
    h.sim.applyDirective(withAnnotation('rounds', 'db', new Date().toISOString()));
    await eventually('the TooManyRuns Event', () =>
      eventsOf(h, 'rounds', 'TooManyRuns').length > 0 ? true : undefined,
    );
    expect((h.sim.getDirective(NS, 'rounds')?.status as any).issuedAt).toBe(second);
    expect(h.sim.deletedPods().length - before).toBe(2);
  });

  it('keeps counting the runs of a directive deleted and re-created under its name', async () => {
    const spec = (app: string) => directive(NS, 'replaced', [{ namespace: NS, labels: { app } }]);
    h.sim.applyDirective(spec('db'));
    await waitForState(h, NS, 'replaced', 'FINISHED');
    h.sim.applyDirective(spec('api'));
    await eventually('the second run', () =>
      h.sim.getDirective(NS, 'replaced')?.status?.observedGeneration === 2 &&
      h.sim.directiveState(NS, 'replaced') === 'FINISHED'
        ? true
        : undefined,
    );
    const before = h.sim.deletedPods().length;
    // A GitOps tool replacing the object: a new uid, whose run is the directive's third this hour.
    h.sim.deleteDirective(NS, 'replaced');
    h.sim.applyDirective(spec('db'));
    await eventually('the TooManyRuns Event', () =>
      eventsOf(h, 'replaced', 'TooManyRuns').length > 0 ? true : undefined,
    );
    expect(h.sim.directiveState(NS, 'replaced')).not.toBe('FINISHED');
    expect(h.sim.deletedPods().length).toBe(before);
  });

  it('ignores an invalid annotation with an InvalidIssuedAt Warning, starting nothing', async () => {
    addApps(h, NS, ['cache'], { replicas: 1 });
    h.sim.applyDirective(directive(NS, 'odd', [{ namespace: NS, labels: { app: 'cache' } }]));
    await waitForState(h, NS, 'odd', 'FINISHED');
    const bounced = h.sim.deletedPods().length;
    h.sim.applyDirective(withAnnotation('odd', 'cache', 'tomorrow'));
    await eventually('the InvalidIssuedAt Event', () =>
      eventsOf(h, 'odd', 'InvalidIssuedAt').length > 0 ? true : undefined,
    );
    expect(eventsOf(h, 'odd', 'InvalidIssuedAt')[0]).toMatchObject({ type: 'Warning' });
    expect(h.sim.getDirective(NS, 'odd')?.status?.state).toBe('FINISHED');
    expect(h.sim.deletedPods()).toHaveLength(bounced);
  });

  it('refuses a directive that cannot run: FAILED, observedGeneration, error and a Refused Warning', async () => {
    // A selector outside ALLOWED_NAMESPACES (403 for a sender), a gate without PROMETHEUS_URL (422).
    h.sim.applyDirective(
      directive(NS, 'outside', [{ namespace: 'kube-system', labels: { app: 'dns' } }]),
    );
    h.sim.applyDirective({
      ...directive(NS, 'gated', [{ namespace: NS, labels: { app: 'web' } }]),
      spec: { podsToBounce: [{ namespace: NS, labels: { app: 'web' } }], gates: [{ alerts: 'X' }] },
    });
    // An alerts regex RE2 does not compile (a lookahead), as PromQL's =~ would not.
    h.sim.applyDirective({
      ...directive(NS, 'lookahead', [{ namespace: NS, labels: { app: 'web' } }]),
      spec: {
        podsToBounce: [{ namespace: NS, labels: { app: 'web' } }],
        gates: [{ alerts: '(?!Watchdog).*' }],
      },
    });
    for (const [name, cause] of [
      ['outside', /ALLOWED_NAMESPACES/],
      ['gated', /PROMETHEUS_URL/],
      ['lookahead', /spec\.gates\[0\]\.alerts.*RE2.*unsupported Perl syntax/],
    ] as const) {
      const failed = await waitForState(h, NS, name, 'FAILED');
      expect(failed.status.observedGeneration).toBe(failed.metadata.generation);
      expect(failed.status.error).toMatch(/^directive: /);
      expect(failed.status.error).toMatch(cause);
      const stalled = failed.status.conditions.find((c: any) => c.type === 'Stalled');
      expect(stalled).toMatchObject({ status: 'True' });
      await eventually(`the Refused Event of ${name}`, () =>
        eventsOf(h, name, 'Refused').length === 1 ? true : undefined,
      );
      expect(eventsOf(h, name, 'Refused')[0]).toMatchObject({ type: 'Warning' });
    }
    expect(
      await h.serve.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed'),
    ).toMatchObject({ waiting: 0, prioritized: 0, active: 0 });
  });

  it('writes a refusal the API server could not take once it can, trying again with backoff', async () => {
    h.sim.setFaults({ errorRate: 1, status: 503, methods: ['PATCH'], resources: ['status'] });
    h.sim.applyDirective(directive(NS, 'flaky', [{ namespace: 'kube-system', labels: {} }]));
    const refusedWrites = () =>
      h.sim
        .requests()
        .filter((r) => r.name === 'flaky' && r.subresource === 'status' && r.status === 503);
    // A status write tries 4 times (src/kube/retry.ts): a fifth attempt is the controller's own.
    await eventually('the controller to try the refusal again', () =>
      refusedWrites().length > 4 ? true : undefined,
    );
    expect(h.sim.getDirective(NS, 'flaky')?.status).toBeUndefined();
    h.sim.setFaults(null);
    const failed = await waitForState(h, NS, 'flaky', 'FAILED');
    expect(failed.status.error).toMatch(/^directive: .*ALLOWED_NAMESPACES/);
  });
});

describe('controller mode at installation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('controller-install', { worker: false, env: CONTROLLER });
  });
  afterAll(async () => h.close());

  it('starts nothing for a directive whose status already describes its generation, whoever wrote it', async () => {
    addApps(h, NS, ['web'], { replicas: 2 });
    const described = h.sim.applyDirective(
      directive(NS, 'described', [{ namespace: NS, labels: { app: 'web' } }]),
    );
    // Another controller's status (no pod-bouncer run exists for it), then a directive it has not seen.
    await h.kube.patchDirectiveStatus(described as any, {
      observedGeneration: 1,
      state: 'FINISHED',
      error: '',
    });
    const stale = h.sim.applyDirective(
      directive(NS, 'stale', [{ namespace: NS, labels: { app: 'web' } }]),
    );
    await h.kube.patchDirectiveStatus(stale as any, { observedGeneration: 1, state: 'FINISHED' });
    h.sim.applyDirective(directive(NS, 'stale', [{ namespace: NS, labels: { app: 'other' } }]));

    h.startWorker();
    // The directive with a status of an older generation runs: the worker is watching.
    await waitForState(h, NS, 'stale', 'FINISHED');
    await sleep(500);
    expect(h.sim.deletedPods()).toHaveLength(0);
    expect(h.sim.getDirective(NS, 'described')?.status?.state).toBe('FINISHED');
    expect(await h.serve.queue.getJobCounts('completed')).toEqual({ completed: 1 });
  });
});
