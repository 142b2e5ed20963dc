import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpsApp } from '../../src/ingress/ops-app.js';
import { directive, startHarness, TOKEN, type Harness } from '../support/harness.js';
import { dripRequest, rawRequest } from '../support/raw-http.js';

/**
 * DESIGN §2: on every route and port, a route that takes no body never reads one, and a guarded
 * route refuses an unauthenticated request before it reads its body. Behavioural proof, without
 * timing: a body that never finishes arriving (1 MB announced, 16 bytes sent) can only be answered
 * by a server that does not wait for it (the body timeout is set far beyond the client's patience),
 * and a malformed body can only be answered 400 by a server that parsed it.
 */
const AUTH = { authorization: `Bearer ${TOKEN}` };

type Port = 'api' | 'worker';
const CASES: Array<[string, Port, string, string, Record<string, string>, number]> = [
  ['an unknown route', 'api', 'POST', '/nonexistent', {}, 404],
  ['an unknown route, with a token', 'api', 'POST', '/nonexistent', AUTH, 404],
  ['a method /healthz does not take', 'api', 'POST', '/healthz', {}, 405],
  ['the liveness probe', 'api', 'GET', '/healthz', {}, 200],
  ['the readiness probe', 'api', 'GET', '/readyz', {}, 200],
  ['the metrics', 'api', 'GET', '/metrics', {}, 200],
  ['a method /v1/events does not take', 'api', 'PUT', '/v1/events', {}, 405],
  ['a method /v1/events does not take, with a token', 'api', 'DELETE', '/v1/events', AUTH, 405],
  ['a method a directive path does not take', 'api', 'POST', '/v1/directives/a/b', {}, 405],
  ['a method /v1/events does not take: OPTIONS', 'api', 'OPTIONS', '/v1/events', {}, 405],
  ['a directive path no route serves', 'api', 'POST', '/v1/directives/a/b/c/d', {}, 404],
  ['a control route, without credentials', 'api', 'POST', '/v1/directives/a/b/retry', {}, 401],
  ['a control route, authenticated', 'api', 'POST', '/v1/directives/unread/certs/pause', AUTH, 200],
  ['the events endpoint, without credentials', 'api', 'POST', '/v1/events', {}, 401],
  [
    'the events endpoint, with a junk token',
    'api',
    'POST',
    '/v1/events',
    { authorization: 'Bearer junk-0123' },
    401,
  ],
  ['a method the worker does not take', 'worker', 'POST', '/healthz', {}, 405],
  ['an unknown route of the worker', 'worker', 'PUT', '/nonexistent', {}, 404],
  ["the worker's liveness probe", 'worker', 'GET', '/healthz', {}, 200],
  ["the worker's metrics", 'worker', 'GET', '/metrics', {}, 200],
];

describe('bodies are read only by the route that takes one, once it is authenticated', () => {
  let h: Harness;
  let ops: FastifyInstance;
  const urls = { api: '', worker: '' };
  beforeAll(async () => {
    h = await startHarness('unread', { worker: false, env: { BODY_TIMEOUT_SECONDS: '60' } });
    h.sim.applyDirective(directive('unread', 'certs', [{ namespace: 'unread', labels: {} }]));
    ops = await buildOpsApp(h.serve.app.log);
    urls.api = h.serve.url;
    urls.worker = await ops.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await ops?.close();
    await h?.close();
  });

  it.each(CASES)(
    '%s (%s %s %s): answered before the body arrives, and the connection closed',
    async (_what, port, method, path, headers, status) => {
      const answer = await dripRequest(urls[port], method, path, headers);
      expect(answer).toEqual({ status, closed: true });
    },
  );

  it.each(CASES)(
    '%s (%s %s %s): a malformed body is not parsed',
    async (_what, port, method, path, headers, status) => {
      const body = '{"a": [[[[';
      const answer = await rawRequest(
        urls[port],
        method,
        path,
        // Node sends a GET's or a DELETE's body unannounced unless told its length.
        { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
        body,
      );
      expect(answer.status, answer.body).toBe(status);
      // The answer says nothing about the body: it was never looked at.
      if (status >= 400) expect(answer.body).not.toMatch(/JSON|body/);
    },
  );

  it('waits for the body of the one route that takes it, once the sender is admitted', async () => {
    // The probe above is sound: an admitted event does wait for its body.
    const answer = await dripRequest(urls.api, 'POST', '/v1/events', AUTH, { giveUpMs: 1000 });
    expect(answer).toEqual({ status: undefined, closed: false });
  });
});
