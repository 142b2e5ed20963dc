// DESIGN §1 conditions and the §4 status table, as `kubectl get pbd` and `kubectl wait` see them:
// every status the directive goes through is recorded from a watch.
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { rootCertSync, syncRootCert } from '../support/root-cert.js';
import { addApps } from '../support/workloads.js';

const SYNC = rootCertSync('istio-system', 'bookinfo');

interface Snapshot {
  at: number;
  generation: number;
  status: any;
}

function cond(status: any, type: string): any {
  return status?.conditions?.find((c: any) => c.type === type);
}

/** Every status a directive has had, from a watch (each write is one MODIFIED event). */
async function recordStatuses(h: Harness, namespace: string, name: string) {
  const kc = new KubeConfig();
  kc.loadFromString(h.sim.kubeconfigYaml());
  const seen: Snapshot[] = [];
  const request = await new Watch(kc).watch(
    `/apis/internal.gloo.solo.io/v2/namespaces/${namespace}/podbouncedirectives`,
    { fieldSelector: `metadata.name=${name}` },
    (_type, object: any) => {
      const last = seen.at(-1);
      if (JSON.stringify(last?.status) === JSON.stringify(object.status)) return;
      seen.push({ at: Date.now(), generation: object.metadata.generation, status: object.status });
    },
    () => undefined,
  );
  return { seen, stop: () => request.abort() };
}

describe('conditions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('conditions', { env: { ROOT_CERT_SYNC_TIMEOUT_SECONDS: '2' } });
    h.sim.putSecret('istio-system', 'cacerts', { 'root-cert.pem': 'NEW ROOT' });
  });
  afterAll(async () => h.close());

  it('go Pending → Waiting (root cert) → Bouncing/Waiting (batches) → Ready True, with one-line messages', async () => {
    h.sim.putConfigMap('bookinfo', 'istio-ca-root-cert', { 'root-cert.pem': 'OLD ROOT' });
    addApps(h, 'bookinfo', ['reviews'], { replicas: 6, readinessDelayMs: 150 });
    h.sim.applyDirective(
      directive('bookinfo', 'reviews', [
        {
          namespace: 'bookinfo',
          labels: { app: 'reviews' },
          waitForReplicas: 6,
          maxUnavailable: 1,
          rootCertSync: SYNC,
        },
        { namespace: 'bookinfo', labels: { app: 'nothing-matches' }, waitForReplicas: 0 },
      ]),
    );
    const recorder = await recordStatuses(h, 'bookinfo', 'reviews');
    h.sim.resetRequests();
    // PENDING follows the answer: the worker waits for it here, so the table starts with it (a
    // worker faster than the api's write starts at BOUNCING_PODS, which pending-after-answer covers).
    await h.work?.worker.pause();
    const issuedAt = new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    // issuedAt after the pods' creation: they are all chosen. Ahead of the clock, it counts as
    // the moment it was received.
    const posted = await h.post({
      directive: { namespace: 'bookinfo', name: 'reviews' },
      issuedAt,
    });
    expect(posted.status).toBe(202);
    await eventually('PENDING, written after the answer', () =>
      h.sim.getDirective('bookinfo', 'reviews')?.status?.state === 'PENDING' ? true : undefined,
    );
    await h.work?.worker.resume();
    await eventually('the root cert wait in the message', () =>
      cond(h.sim.getDirective('bookinfo', 'reviews')?.status, 'Ready')?.reason === 'Waiting'
        ? true
        : undefined,
    );
    expect(cond(h.sim.getDirective('bookinfo', 'reviews')?.status, 'Ready').message).toBe(
      'selector 1/2 (bookinfo app=reviews): waiting for root cert sync (ConfigMap differs)',
    );
    syncRootCert(h, 'bookinfo');
    const started = Date.now();
    const done = await waitForState(h, 'bookinfo', 'reviews', 'FINISHED');
    const took = Date.now() - started;
    await eventually('the watch to deliver FINISHED', () =>
      recorder.seen.at(-1)?.status?.state === 'FINISHED' ? true : undefined,
    );
    recorder.stop();
    const { seen } = recorder;
    const generation = done.metadata.generation;

    // The table's states and Ready reasons, in order.
    expect(seen[0]?.status).toMatchObject({ state: 'PENDING' });
    expect(cond(seen[0]?.status, 'Ready')).toMatchObject({ status: 'False', reason: 'Pending' });
    const reasons = seen.map((s) => cond(s.status, 'Ready')?.reason);
    expect(reasons[0]).toBe('Pending');
    expect(reasons).toContain('Waiting');
    expect(reasons).toContain('Bouncing');
    expect(reasons.at(-1)).toBe('Finished');
    expect(done.status.issuedAt).toBe(posted.body.issuedAt);
    expect(Date.parse(done.status.issuedAt)).toBeLessThan(Date.parse(issuedAt));

    // Every condition names the generation; Reconciling True until the end, then removed.
    for (const { status } of seen) {
      for (const c of status.conditions) expect(c.observedGeneration).toBe(generation);
      if (status.state !== 'FINISHED') expect(cond(status, 'Reconciling')?.status).toBe('True');
      expect(cond(status, 'Stalled')).toBeUndefined();
    }
    expect(cond(done.status, 'Reconciling')).toBeUndefined();
    expect(cond(done.status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Finished',
      observedGeneration: generation,
    });

    // lastTransitionTime moves only when Ready's status does: once, at FINISHED.
    const falseTimes = new Set(
      seen
        .filter((s) => s.status.state !== 'FINISHED')
        .map((s) => cond(s.status, 'Ready').lastTransitionTime),
    );
    expect(falseTimes.size).toBe(1);
    expect(cond(done.status, 'Ready').lastTransitionTime).not.toBe([...falseTimes][0]);

    // Batch messages as a person reads them.
    const messages = seen.map((s) => cond(s.status, 'Ready').message as string);
    expect(
      messages.some((m) => /^selector 1\/2 \(bookinfo app=reviews\): \d\/6 bounced/.test(m)),
    ).toBe(true);

    // The selector that matches nothing says so: a Warning Event (written after its status).
    await eventually('a NoPodsChosen Warning', () =>
      h.sim.events().some((e: any) => e.reason === 'NoPodsChosen' && e.type === 'Warning')
        ? true
        : undefined,
    );

    // Progress messages are rate-limited: six batches' counts would be a dozen writes, but only
    // one status write per 2 s goes beyond the fixed transitions (PENDING, chosen ×2, FINISHED,
    // and the root cert wait's first message).
    const writes = h.sim
      .requests()
      .filter((r) => r.resource === 'podbouncedirectives' && r.subresource === 'status');
    console.log(
      `conditions: ${writes.length} status writes in ${took} ms after the gate opened; ${seen.length} statuses seen`,
    );
    expect(writes.length).toBeLessThanOrEqual(6 + Math.ceil(took / 2000));
  });

  it('a failed run is Stalled with the error as message, and Reconciling is removed', async () => {
    h.sim.putConfigMap('bookinfo', 'other-root', { 'root-cert.pem': 'OLD ROOT' });
    h.sim.applyDirective(
      directive('bookinfo', 'never-synced', [
        {
          namespace: 'bookinfo',
          labels: { app: 'reviews' },
          waitForReplicas: 0,
          rootCertSync: { ...SYNC, configMapRef: { name: 'other-root', namespace: 'bookinfo' } },
        },
      ]),
    );
    expect(
      (await h.post({ directive: { namespace: 'bookinfo', name: 'never-synced' } })).status,
    ).toBe(202);
    const failed = await waitForState(h, 'bookinfo', 'never-synced', 'FAILED');
    expect(failed.status.error).toMatch(/^selector 0: timed out after 2s waiting for root cert/);
    expect(cond(failed.status, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'Failed',
      message: failed.status.error,
    });
    expect(cond(failed.status, 'Ready')).toMatchObject({ status: 'False', reason: 'Failed' });
    expect(cond(failed.status, 'Reconciling')).toBeUndefined();
  });
});
