import {
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abortKey } from '../../src/queue/names.js';
import { GROUP, PLURAL, VERSION } from './sim-clients.js';

const ref = { group: GROUP, version: VERSION, plural: PLURAL };
import {
  directive,
  eventually,
  startHarness,
  stuckMesh,
  TOKEN,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { LogCapture } from '../support/log-capture.js';

describe('pause, resume, abort and retry of a directive', () => {
  let h: Harness;
  const logs = new LogCapture();
  const call = async (method: string, path: string, token: string | null = TOKEN) => {
    const response = await fetch(`${h.serve.url}${path}`, {
      method,
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    // Waits outlast the test: the run below can only end by its abort.
    h = await startHarness('controls', {
      env: { READINESS_TIMEOUT_SECONDS: '120', LOG_LEVEL: 'info' },
      logDestination: logs,
    });
    stuckMesh(h, 'stuck');
    h.sim.applyDirective(directive('ctlns', 'idle', [{ namespace: 'ctlns', labels: {} }]));
  });
  afterAll(async () => h.close());

  it('pauses and resumes with the annotation, and GET shows it', async () => {
    const paused = await call('POST', '/v1/directives/ctlns/idle/pause');
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ directive: 'ctlns/idle', paused: true });
    const annotations = (h.sim.getDirective('ctlns', 'idle') as any).metadata.annotations;
    expect(annotations['pod-bouncer.io/paused']).toBe('true');
    // The annotation's owner is pod-bouncer, not the HTTP client's name: another manager's apply
    // changing it meets a conflict that names pod-bouncer.
    const kc = new KubeConfig();
    kc.loadFromString(h.sim.kubeconfigYaml());
    const custom = kc.makeApiClient(CustomObjectsApi);
    const body = { ...ref, namespace: 'ctlns', name: 'idle', fieldManager: 'someone-else' };
    const annotated = { apiVersion: `${ref.group}/${ref.version}`, kind: 'PodBounceDirective' };
    const conflict = await custom
      .patchNamespacedCustomObject(
        {
          ...body,
          body: {
            ...annotated,
            metadata: { name: 'idle', annotations: { 'pod-bouncer.io/paused': 'false' } },
          },
        },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      )
      .then(
        () => 'applied',
        (error: { code?: number; body?: string }) => `${error.code} ${error.body ?? ''}`,
      );
    expect(conflict).toMatch(/^409 .*conflict with \\"pod-bouncer\\"/);
    expect((await call('GET', '/v1/directives/ctlns/idle')).body.paused).toBe(true);

    const resumed = await call('POST', '/v1/directives/ctlns/idle/resume');
    expect(resumed.status).toBe(200);
    expect(resumed.body.paused).toBe(false);
    const after = (h.sim.getDirective('ctlns', 'idle') as any).metadata.annotations ?? {};
    expect(after['pod-bouncer.io/paused']).toBeUndefined();
    expect((await call('GET', '/v1/directives/ctlns/idle')).body.paused).toBe(false);
  });

  it('takes the same credentials, and answers 404 for a directive that does not exist', async () => {
    for (const action of ['pause', 'resume', 'abort']) {
      expect((await call('POST', `/v1/directives/ctlns/idle/${action}`, null)).status).toBe(401);
      expect((await call('POST', `/v1/directives/ctlns/nope/${action}`)).status).toBe(404);
    }
  });

  it('answers 409 to abort when the latest run is not in progress', async () => {
    const answer = await call('POST', '/v1/directives/ctlns/idle/abort');
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('conflict');
  });

  it('aborts a run in progress by setting its abort key, and retry withdraws it', async () => {
    // Later than every pod's creation, so that each is chosen (within the 5-minute skew allowed).
    const issuedAt = new Date(Date.now() + 60_000);
    const accepted = await h.post({
      directive: { namespace: 'istio-system', name: 'stuck' },
      issuedAt: issuedAt.toISOString(),
    });
    expect(accepted.status).toBe(202);
    const { uid, generation } = accepted.body;
    // The run's key is its issuance in epoch milliseconds (DESIGN §2 *Runs*): ahead of the clock,
    // the moment it was received.
    const runKey = String(Date.parse(accepted.body.issuedAt));
    const aborted = await call('POST', '/v1/directives/istio-system/stuck/abort');
    expect(aborted.status).toBe(202);
    expect(aborted.body.aborted).toBe(`${uid}.g${generation}.r${runKey}`);
    const key = abortKey(h.prefix, uid, generation, runKey);
    expect(await h.serve.redis.get(key)).toMatch(/^\d{4}-/);
    expect(await h.serve.redis.ttl(key)).toBeGreaterThan(0);

    const view = await call('GET', '/v1/directives/istio-system/stuck');
    expect(view.body).toMatchObject({ directive: 'istio-system/stuck', paused: false });
    expect(view.body.jobs.length).toBeGreaterThan(0);

    // The run fails as aborted; retrying it deletes the abort request first.
    const failed = await waitForState(h, 'istio-system', 'stuck', 'FAILED', 30_000);
    expect(failed.status.error).toMatch(/^selector 0: aborted$/);
    const retried = await call('POST', '/v1/directives/istio-system/stuck/retry');
    expect(retried.status).toBe(202);
    expect(await h.serve.redis.exists(key)).toBe(0);
  });

  it('answers 409 to an abort of a run that ended FAILED, while its later selectors still wait', async () => {
    const path = '/v1/directives/istio-system/stuck';
    const states = async (): Promise<string[]> =>
      (await call('GET', path)).body.jobs.map((job: any) => job.state);
    // The run retried above is going again: aborted once more, it ends FAILED.
    await eventually('the retried job to run again', async () =>
      (await states())[0] !== 'failed' ? true : undefined,
    );
    expect((await call('POST', `${path}/abort`)).status).toBe(202);
    await waitForState(h, 'istio-system', 'stuck', 'FAILED', 30_000);
    // The second selector is still in waiting-children (a retry of the first resumes it)...
    await eventually('the first job failed', async () =>
      (await states())[0] === 'failed' ? true : undefined,
    );
    expect(await states()).toEqual(['failed', 'waiting-children']);
    // ...but the run is over: a second abort has nothing to end, and GET says so.
    const again = await call('POST', `${path}/abort`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: 'conflict',
      message: expect.stringMatching(
        /^istio-system\/stuck \(generation \d+, run \d+\) is not in progress\.$/,
      ),
    });
    expect((await call('GET', path)).body.inProgress).toBe(false);
    // A retry still resumes it, and then it is in progress again.
    expect((await call('POST', `${path}/retry`)).status).toBe(202);
    expect((await call('GET', path)).body.inProgress).toBe(true);
  });

  it('answers 409, not 503, to the retries that lost the race to a simultaneous one', async () => {
    const path = '/v1/directives/istio-system/stuck';
    expect((await call('POST', `${path}/abort`)).status).toBe(202);
    await waitForState(h, 'istio-system', 'stuck', 'FAILED', 30_000);
    await eventually('the first job failed', async () =>
      (await call('GET', path)).body.jobs[0].state === 'failed' ? true : undefined,
    );
    const answers = await Promise.all([1, 2, 3].map(() => call('POST', `${path}/retry`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409, 409]);
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect(answer.body).toEqual({
        error: 'conflict',
        message: expect.stringMatching(/^Nothing has failed in istio-system\/stuck /),
      });
    }
    const errors = logs.lines().filter((line) => JSON.parse(line).level === 'error');
    expect(errors.filter((line) => /not in the failed state|unreachable/.test(line))).toEqual([]);
  });
});
