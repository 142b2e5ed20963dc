// DESIGN §2/§3: bad input is a 4xx naming the problem, with no side effect. A query parameter a
// route does not declare is refused, after the route's credentials checks, on both ports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpsApp } from '../../src/ingress/ops-app.js';
import { directive, startHarness, TOKEN, type Harness } from '../support/harness.js';

const AUTH = { authorization: `Bearer ${TOKEN}` };
const REFERENCE = JSON.stringify({ directive: { namespace: 'qs', name: 'certs' } });

describe('query parameters a route does not declare', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('query-params', { worker: false });
    h.sim.addWorkload({
      namespace: 'qs',
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'app' },
      replicas: 2,
    });
    h.sim.applyDirective(directive('qs', 'certs', [{ namespace: 'qs', labels: { app: 'app' } }]));
  });
  afterAll(async () => h.close());

  const events = (url: string, headers: Record<string, string> = AUTH) =>
    h.serve.app.inject({
      method: 'POST',
      url,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: REFERENCE,
    });

  it('POST /v1/events?dryrun=true (wrong case) is a 400 naming it, and runs nothing', async () => {
    const answer = await events('/v1/events?dryrun=true');
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({
      error: 'unknown_query_parameter',
      message: expect.stringContaining('"dryrun"'),
    });
    expect(answer.json().message).toContain('dryRun');
    expect(await h.serve.queue.count()).toBe(0);
    expect(h.sim.getDirective('qs', 'certs')?.status).toBeUndefined();
    expect(h.sim.deletedPods()).toEqual([]);
  });

  it('a stranger still gets the 401 first', async () => {
    const answer = await events('/v1/events?dryrun=true', {});
    expect(answer.statusCode).toBe(401);
    const read = await h.serve.app.inject({ method: 'GET', url: '/v1/directives/qs/certs?x=1' });
    expect(read.statusCode).toBe(401);
  });

  it('the declared one still works: ?dryRun=true plans and changes nothing', async () => {
    const answer = await events('/v1/events?dryRun=true');
    expect(answer.statusCode).toBe(200);
    expect(await h.serve.queue.count()).toBe(0);
  });

  it('every other route of the api refuses them too', async () => {
    const urls = [
      ['GET', '/v1/directives/qs/certs?verbose=1'],
      ['POST', '/v1/directives/qs/certs/pause?force=true'],
      ['POST', '/v1/directives/qs/certs/abort?now'],
      ['GET', '/healthz?x=1'],
      ['GET', '/readyz?full'],
      ['GET', '/metrics?name[]=up'],
      ['GET', '/openapi.json?format=yaml'],
    ] as const;
    for (const [method, url] of urls) {
      const answer = await h.serve.app.inject({ method, url, headers: AUTH });
      expect(answer.statusCode, url).toBe(400);
      expect(answer.json().error, url).toBe('unknown_query_parameter');
    }
    // Nothing was paused or aborted.
    expect(h.sim.getDirective('qs', 'certs')?.metadata.annotations?.['pod-bouncer.io/paused']).toBe(
      undefined,
    );
    expect((await h.serve.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it("and so does the worker's port", async () => {
    const ops = await buildOpsApp(h.serve.app.log);
    try {
      for (const url of ['/healthz?x=1', '/metrics?debug']) {
        const answer = await ops.inject({ method: 'GET', url });
        expect(answer.statusCode, url).toBe(400);
        expect(answer.json().error, url).toBe('unknown_query_parameter');
      }
      expect((await ops.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await ops.close();
    }
  });
});
