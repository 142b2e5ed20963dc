import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { rawRequest } from '../support/raw-http.js';
import { DASHBOARD, basic } from '../support/dashboard.js';
import { addApps, onePodDirective } from '../support/workloads.js';

const AUTH = {
  authorization: basic(),
  'content-type': 'application/json',
};

/** Every bull-board write the dashboard must refuse, as bull-board routes them. */
function refusedWrites(jobId: string): Array<[string, string]> {
  const q = '/admin/queues/api/queues/bounce';
  return [
    ['PUT', `${q}/obliterate`],
    ['PUT', `${q}/empty`],
    ['PUT', `${q}/clean/completed`],
    ['PUT', `${q}/clean/waiting`],
    ['PUT', `${q}/retry/completed`],
    ['PUT', `${q}/concurrency`],
    ['PUT', `${q}/rate-limit`],
    ['PUT', `${q}/rate-limit/release`],
    ['PUT', `${q}/job-schedulers/s/remove`],
    ['PUT', `${q}/job-schedulers/s/run`],
    ['PATCH', `${q}/job-schedulers/s`],
    ['POST', `${q}/add`],
    ['PUT', `${q}/${jobId}/clean`],
    ['PUT', `${q}/${jobId}/remove-unprocessed-children`],
    ['PATCH', `${q}/${jobId}/update-data`],
    ['PATCH', `${q}/${jobId}/delay`],
    ['PATCH', `${q}/${jobId}/priority`],
    ['POST', '/admin/queues/api/metrics/history/purge'],
  ];
}

/** The same request dressed up so that a guard reading the raw URL would see an allowed one. */
function variants(path: string): string[] {
  const last = path.lastIndexOf('/');
  return [
    path,
    `${path}#/retry`,
    `${path}?/retry`,
    `${path}?x=/api/queues/bounce/retry/failed`,
    `${path}%2Fretry`,
    `${path}%2F..%2Fretry`,
    `${path}//retry`,
    `${path}/`,
    path.replace('/api/queues/', '/api/queues//'),
    `${path.slice(0, last)}${path.slice(last).toUpperCase()}`,
    path.replace('/api/', '/API/'),
  ];
}

describe('the dashboard write guard decides on the route that matched', () => {
  let h: Harness;
  let jobIds: string[];
  const snapshot = async (): Promise<string> => {
    const jobs = await Promise.all(jobIds.map((id) => h.serve.queue.getJob(id)));
    return JSON.stringify({
      counts: await h.serve.queue.getJobCounts(),
      jobs: jobs.map((job) => [job?.id, job?.data, job?.opts.delay, job?.opts.priority]),
      paused: await h.serve.queue.isPaused(),
    });
  };

  beforeAll(async () => {
    h = await startHarness('dash-guard', {
      worker: false,
      env: DASHBOARD,
    });
    addApps(h, 'istio-system', ['istiod'], { replicas: 1 });
    h.sim.applyDirective(
      directive('istio-system', 'kept', [
        { namespace: 'istio-system', labels: { app: 'istiod' } },
        { namespace: 'istio-system', labels: { app: 'istiod' } },
      ]),
    );
    const accepted = await h.post({ directive: { namespace: 'istio-system', name: 'kept' } });
    expect(accepted.status).toBe(202);
    jobIds = accepted.body.jobIds;
  });
  afterAll(async () => h.close());

  it('refuses every write but retry, promote, pause and resume, however the URL is dressed', async () => {
    const before = await snapshot();
    const body = JSON.stringify({ name: 'x', data: { selector: {} }, concurrency: 1 });
    for (const [method, path] of refusedWrites(jobIds[0]!)) {
      for (const variant of variants(path)) {
        const answer = await rawRequest(h.serve.url, method, variant, AUTH, body);
        expect([403, 404, 405], `${method} ${variant} answered ${answer.status}`).toContain(
          answer.status,
        );
      }
    }
    expect(await snapshot()).toBe(before);
  });

  it('still allows the writes it means to, on their exact routes', async () => {
    const q = '/admin/queues/api/queues/bounce';
    for (const path of [`${q}/retry/failed`, `${q}/pause`, `${q}/resume`]) {
      const answer = await rawRequest(h.serve.url, 'PUT', path, AUTH, '{}');
      expect(answer.status, path).toBeLessThan(300);
    }
    expect(await h.serve.queue.isPaused()).toBe(false);
  });
});

describe('the dashboard retries failed jobs only', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('dash-retry', { env: DASHBOARD });
  });
  afterAll(async () => h.close());

  it('refuses to retry a completed selector job, which would bounce its pods again', async () => {
    onePodDirective(h, 'istio-system', 'done');
    const accepted = await h.post({ directive: { namespace: 'istio-system', name: 'done' } });
    expect(accepted.status).toBe(202);
    await waitForState(h, 'istio-system', 'done', 'FINISHED');
    const [jobId] = accepted.body.jobIds as string[];
    // FINISHED is written as the job ends; BullMQ marks it completed a moment later.
    await eventually('the job to be completed', async () =>
      (await h.serve.queue.getJobState(jobId!)) === 'completed' ? true : undefined,
    );
    const bounces = h.sim.requests().filter((r) => r.method === 'POST' || r.method === 'DELETE');

    const path = `/admin/queues/api/queues/bounce/${jobId}/retry`;
    const answer = await rawRequest(h.serve.url, 'PUT', path, AUTH, '{}');
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'forbidden' });
    // Nothing ran again: the job is still completed and no pod was sent anything more.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await h.serve.queue.getJobState(jobId!)).toBe('completed');
    const after = h.sim.requests().filter((r) => r.method === 'POST' || r.method === 'DELETE');
    expect(after.length).toBe(bounces.length);

    // Promoting a job that is not delayed is a conflict named in JSON, not bull-board's 500.
    const promote = await rawRequest(
      h.serve.url,
      'PUT',
      `/admin/queues/api/queues/bounce/${jobId}/promote`,
      AUTH,
      '{}',
    );
    expect(promote.status).toBe(409);
    expect(JSON.parse(promote.body)).toMatchObject({ error: 'job_not_delayed' });
    expect(JSON.parse(promote.body).message).toContain('completed');
    const unknown = await rawRequest(
      h.serve.url,
      'PUT',
      '/admin/queues/api/queues/bounce/no-such-job/promote',
      AUTH,
      '{}',
    );
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: 'job_not_found' });
    expect(await h.serve.queue.getJobState(jobId!)).toBe('completed');
  });
});
