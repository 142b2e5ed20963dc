import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, TOKEN, type Harness } from '../support/harness.js';
import { rawRequest } from '../support/raw-http.js';

const AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** Writes raw bytes and resolves with whatever the server answered before closing. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', () => undefined);
    socket.end(bytes);
  });
}

const bodyOf = (answer: string): unknown =>
  JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('input the HTTP layer refuses before any work, and what its errors say', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('input', { worker: false });
    h.sim.applyDirective(directive('inputns', 'certs', [{ namespace: 'inputns', labels: {} }]));
  });
  afterAll(async () => h.close());

  it('answers 400 to route parameters that are not DNS-1123 names, before any API call', async () => {
    const paths = [
      '/v1/directives/inputns/..',
      '/v1/directives/../certs',
      '/v1/directives/inputns/..%2F..%2Fsecrets',
      '/v1/directives/inputns/a%2Fb',
      '/v1/directives/Inputns/certs',
      '/v1/directives/inputns/certs%00',
      `/v1/directives/inputns/${'a'.repeat(254)}`,
      '/v1/directives/input_ns/certs/retry',
      '/v1/directives/inputns/..%2Fx/pause',
      '/v1/directives/inputns/-x/abort',
    ];
    h.sim.resetRequests();
    for (const path of paths) {
      const method = /retry|pause|abort/.test(path) ? 'POST' : 'GET';
      const answer = await rawRequest(h.serve.url, method, path, AUTH);
      expect(answer.status, path).toBe(400);
      expect(Object.keys(JSON.parse(answer.body) as object).sort(), path).toEqual([
        'error',
        'message',
      ]);
    }
    expect(h.sim.requests()).toEqual([]);
  });

  it.each([
    ['2026-02-31T00:00:00Z', 400],
    ['2026-11-29T24:00:00Z', 400],
    ['2026-11-29T12:60:00Z', 400],
    ['2026-13-01T00:00:00Z', 400],
    ['0000-01-01T00:00:00Z', 400],
    // A real instant, far ahead: in the future (422), not malformed.
    ['9999-12-31T23:59:59Z', 422],
    ['', 400],
    ['2026-11-29T12:00:00+25:00', 400],
  ])('refuses issuedAt %s with %i', async (issuedAt, status) => {
    const answer = await h.post({ directive: { namespace: 'inputns', name: 'certs' }, issuedAt });
    expect(answer.status).toBe(status);
    expect(answer.body.message).toMatch(/issuedAt/);
  });

  it('refuses an issuedAt more than 5 minutes ahead with 422, and takes one 1 minute ahead', async () => {
    const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();
    const far = await h.post({
      directive: { namespace: 'inputns', name: 'certs' },
      issuedAt: ahead(6 * 60_000),
    });
    expect(far.status).toBe(422);
    expect(far.body.message).toMatch(/issuedAt.*future/);
    const near = await h.post({
      directive: { namespace: 'inputns', name: 'certs' },
      issuedAt: ahead(60_000),
    });
    expect(near.status).toBe(202);
  });

  it('honours x-request-id only when it is short and plain', async () => {
    const echo = async (id: string) =>
      (await fetch(`${h.serve.url}/healthz`, { headers: { 'x-request-id': id } })).headers.get(
        'x-request-id',
      );
    expect(await echo('sender-42.a_b')).toBe('sender-42.a_b');
    expect(await echo('a'.repeat(128))).toBe('a'.repeat(128));
    for (const bad of ['a'.repeat(129), 'x y', 'id\u00e9', '{"inject":1}', 'a/b']) {
      const answered = await echo(bad);
      expect(answered, bad).not.toBe(bad);
      expect(answered, bad).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("gives fastify's and Node's own errors the {error, message} body", async () => {
    const huge = await rawExchange(
      h.serve.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(huge)).toEqual({ error: 'headers_too_large', message: expect.any(String) });

    const notFound = await fetch(`${h.serve.url}/nowhere`);
    expect(notFound.status).toBe(404);
    expect(Object.keys((await notFound.json()) as object).sort()).toEqual(['error', 'message']);

    const wrongMethod = await fetch(`${h.serve.url}/v1/events`, { headers: AUTH });
    expect(wrongMethod.status).toBe(405);
    expect(Object.keys((await wrongMethod.json()) as object).sort()).toEqual(['error', 'message']);

    const tooBig = await fetch(`${h.serve.url}/v1/events`, {
      method: 'POST',
      headers: AUTH,
      body: 'x'.repeat(2_000_000),
    });
    expect(tooBig.status).toBe(413);
    expect(Object.keys((await tooBig.json()) as object).sort()).toEqual(['error', 'message']);
  });

  it('keeps API-server error text out of 5xx bodies', async () => {
    h.sim.setFaults({ errorRate: 1, status: 500, resources: ['podbouncedirectives'] });
    try {
      const answer = await h.post({ directive: { namespace: 'inputns', name: 'certs' } });
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ error: 'unavailable', message: expect.any(String) });
      expect(answer.body.message).not.toMatch(/directive inputns|HTTP 500|injected|internal/i);
      const ready = await fetch(`${h.serve.url}/readyz`);
      expect(JSON.stringify(await ready.json())).not.toMatch(/HTTP|injected|ECONN/);
    } finally {
      h.sim.setFaults(null);
    }
  });
});
