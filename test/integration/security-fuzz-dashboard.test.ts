import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, TOKEN, type Harness } from '../support/harness.js';
import { onePodDirective } from '../support/workloads.js';
import { DASHBOARD, DASHBOARD_USER, basic } from '../support/dashboard.js';

/**
 * Property, with the dashboard mounted: whatever method, path under /admin/queues, query string,
 * credentials and body arrive, the answer is never a 5xx, a 2xx only with the dashboard's
 * credentials, every 4xx has the {error, message} body, and no refused request changes the queue.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

const Q = '/admin/queues/api/queues/bounce';
const jobId = fc.oneof(
  fc.constantFrom('missing', '1', '%2e%2e', '..', 'a'.repeat(300)),
  fc.stringMatching(/^[a-zA-Z0-9._%-]{1,20}$/),
);
const path = fc.oneof(
  fc.constantFrom(
    '/admin/queues',
    '/admin/queues/',
    '/admin/queues/api/queues',
    '/admin/queues/api/redis/stats',
    `${Q}/pause`,
    `${Q}/resume`,
    `${Q}/retry/failed`,
    `${Q}/retry/completed`,
    `${Q}/clean/completed`,
    `${Q}/add`,
    '/admin/queues/static/js/main.js',
    '/admin/queues/queue/bounce',
  ),
  jobId.chain((id) =>
    fc.constantFrom(
      `${Q}/${id}`,
      `${Q}/${id}/retry`,
      `${Q}/${id}/retry/failed`,
      `${Q}/${id}/promote`,
      `${Q}/${id}/logs`,
      `${Q}/${id}/clean`,
      `${Q}/${id}/update-data`,
    ),
  ),
  fc.stringMatching(/^[a-zA-Z0-9._~%/-]{0,30}$/).map((rest) => `/admin/queues/${rest}`),
);
const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');
const query = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  fc.constantFrom('?activeQueue=bounce&status=latest&page=1&jobsPerPage=10', '?page=-1', '?%zz'),
  fc.stringMatching(/^[a-zA-Z0-9=&%._-]{1,30}$/).map((text) => `?${text}`),
);
const payload = fc.oneof(
  fc.constant(''),
  fc.jsonValue().map((value) => JSON.stringify(value) ?? 'null'),
  fc.string({ maxLength: 60 }),
  fc.constantFrom('{"a":', '[', 'nul'),
);
type Credential = 'dashboard' | 'wrong' | 'token' | 'none';
const credential = fc.constantFrom<Credential>('dashboard', 'wrong', 'token', 'none');
const headersOf: Record<Credential, Record<string, string>> = {
  dashboard: { authorization: basic() },
  wrong: { authorization: basic(DASHBOARD_USER, 'not-the-password') },
  token: { authorization: `Bearer ${TOKEN}` },
  none: {},
};

describe('fuzzing the dashboard', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('fuzz-dashboard', {
      worker: false,
      env: DASHBOARD,
    });
    onePodDirective(h, 'fuzz', 'target', { app: 'target' });
    // A job to aim at: waiting, as no worker runs here.
    expect((await h.post({ directive: { namespace: 'fuzz', name: 'target' } })).status).toBe(202);
  });
  afterAll(async () => h.close());

  it(
    `answers ${RUNS} generated requests: never 5xx, 2xx only with its credentials, JSON 4xx`,
    { timeout: 180_000 },
    async () => {
      const statuses = new Map<number, number>();
      const [job] = await h.serve.queue.getJobs([
        'waiting',
        'prioritized',
        'waiting-children',
        'delayed',
      ]);
      const knownId = job?.id ?? 'missing';
      let refusedChanges = 0;
      await fc.assert(
        fc.asyncProperty(
          method,
          fc.oneof(path, fc.constant(`${Q}/${knownId}/retry`)),
          query,
          payload,
          credential,
          async (verb, url, search, body, kind) => {
            const withBody = !['GET', 'HEAD'].includes(verb) && body !== '';
            const before = JSON.stringify(await h.serve.queue.getJobCounts());
            const answer = await h.serve.app.inject({
              method: verb,
              url: `${url}${search}`,
              headers: {
                ...headersOf[kind],
                ...(withBody ? { 'content-type': 'application/json' } : {}),
              },
              ...(withBody ? { payload: body } : {}),
            });
            statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
            const what = `${verb} ${url}${search} ${kind}: ${answer.body.slice(0, 300)}`;
            expect(answer.statusCode, what).toBeLessThan(500);
            if (kind !== 'dashboard') expect(answer.statusCode, what).toBeGreaterThanOrEqual(400);
            if (answer.statusCode >= 400 && verb !== 'HEAD') {
              expect(JSON.parse(answer.body), what).toEqual(
                expect.objectContaining({ error: expect.any(String), message: expect.any(String) }),
              );
              const after = JSON.stringify(await h.serve.queue.getJobCounts());
              if (after !== before) refusedChanges += 1;
            }
          },
        ),
        { numRuns: RUNS },
      );
      console.log(
        `fuzz dashboard: ${RUNS} requests, answers ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
      expect(refusedChanges).toBe(0);
      expect(statuses.get(401) ?? 0).toBeGreaterThan(0);
      expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
      // Still serving, and the job is where it was.
      expect((await h.serve.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect(h.sim.deletedPods()).toEqual([]);
    },
  );
});
