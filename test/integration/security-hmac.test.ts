import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, TOKEN, type Harness } from '../support/harness.js';

const SECRET = 'hmac-secret-c0ffee-1234';
const sign = (body: string | Buffer): string =>
  `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

/**
 * Sends headers and the first bytes of a body, then stalls. Resolves with what the server wrote
 * before it closed the connection (or with `open` if it is still open after `giveUpMs`).
 */
function stalledUpload(url: string, giveUpMs: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve('open');
    }, giveUpMs);
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve(received);
    });
    socket.on('error', () => undefined);
    socket.write(
      'POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: 1000\r\nX-Signature-256: ${sign('x')}\r\n\r\n{"directive":`,
    );
  });
}

describe('HMAC signatures are checked over the exact bytes, before the body is parsed', () => {
  let h: Harness;
  const body = JSON.stringify({ directive: { namespace: 'hmacns', name: 'certs' } });
  const post = (raw: string, headers: Record<string, string>, query = '?dryRun=true') =>
    fetch(`${h.serve.url}/v1/events${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: raw,
    });

  beforeAll(async () => {
    h = await startHarness('hmac', {
      worker: false,
      env: { WEBHOOK_HMAC_SECRET: SECRET, BODY_TIMEOUT_SECONDS: '1' },
    });
    h.sim.addWorkload({
      namespace: 'hmacns',
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 1,
    });
    h.sim.applyDirective(directive('hmacns', 'certs', [{ namespace: 'hmacns', labels: {} }]));
  });
  afterAll(async () => h.close());

  it('admits a signature of the bytes sent', async () => {
    const answer = await post(body, { 'x-signature-256': sign(body) });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { selectors: unknown[] }).selectors).toHaveLength(1);
  });

  it('refuses the signature of the empty body on a body that is not empty', async () => {
    const answer = await post(body, { 'x-signature-256': sign('') });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await answer.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('refuses a signature of other bytes, and of the body with one byte changed', async () => {
    expect((await post(body, { 'x-signature-256': sign(`${body} `) })).status).toBe(401);
    const changed = body.replace('certs', 'certz');
    expect((await post(changed, { 'x-signature-256': sign(body) })).status).toBe(401);
    expect((await post(body, { 'x-signature-256': sign(changed) })).status).toBe(401);
  });

  it('admits no bodiless request with the signature of the empty body', async () => {
    const view = await fetch(`${h.serve.url}/v1/directives/hmacns/certs`, {
      headers: { 'x-signature-256': sign('') },
    });
    expect(view.status).toBe(401);
    const retry = await fetch(`${h.serve.url}/v1/directives/hmacns/certs/retry`, {
      method: 'POST',
      headers: { 'x-signature-256': sign('') },
    });
    expect(retry.status).toBe(401);
  });

  it('admits no control route with a signature: HMAC("{}") or a captured event\'s is a 401', async () => {
    // A run in progress (no worker here): an abort would end it, a retry or pause change it.
    const run = await post(
      JSON.stringify({ directive: { namespace: 'hmacns', name: 'certs' } }),
      { authorization: `Bearer ${TOKEN}` },
      '',
    );
    expect(run.status).toBe(202);
    const captured = JSON.stringify({ directive: { namespace: 'hmacns', name: 'certs' } });
    const attempts: Array<[string, string]> = [
      ...['pause', 'resume', 'abort', 'retry'].map((verb): [string, string] => [verb, '{}']),
      ['pause', captured],
      ['abort', captured],
    ];
    for (const [verb, raw] of attempts) {
      const answer = await fetch(`${h.serve.url}/v1/directives/hmacns/certs/${verb}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature-256': sign(raw) },
        body: raw,
      });
      expect(answer.status, `${verb} ${raw}`).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(await answer.json()).toEqual({
        error: 'unauthorized',
        message: expect.stringMatching(/signature .*POST \/v1\/events.*bearer token/i),
      });
    }
    const view = await fetch(`${h.serve.url}/v1/directives/hmacns/certs`, {
      headers: { 'x-signature-256': sign('{}') },
    });
    expect(view.status).toBe(401);
    const annotations = (h.sim.getDirective('hmacns', 'certs') as any).metadata.annotations ?? {};
    expect(annotations['pod-bouncer.io/paused']).toBeUndefined();
    const state = await fetch(`${h.serve.url}/v1/directives/hmacns/certs`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(((await state.json()) as { inProgress: boolean }).inProgress).toBe(true);
  });

  it('never parses an unsigned or mis-signed body: 1 MB that would be a 400 is a 401', async () => {
    const junk = `{"directive": ${'['.repeat(1000)}${'x'.repeat(1_000_000)}`;
    // Admitted (a token, or its own signature), the same bytes are parsed, and are a 400: so the
    // 401s below are answered before any parsing.
    for (const admitted of <Array<Record<string, string>>>[
      { authorization: `Bearer ${TOKEN}` },
      { 'x-signature-256': sign(junk) },
    ]) {
      const parsed = await post(junk, admitted);
      expect(parsed.status).toBe(400);
      expect(await parsed.json()).toMatchObject({ message: /not valid JSON/ });
    }
    for (const headers of <Array<Record<string, string>>>[
      { 'x-signature-256': sign('something else') },
      {},
    ]) {
      const answer = await post(junk, headers);
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({ error: 'unauthorized' });
    }
  });

  it('closes a stalled upload once BODY_TIMEOUT_SECONDS has passed (408 or closed)', async () => {
    const written = await stalledUpload(h.serve.url, 15_000);
    expect(written).not.toBe('open');
    if (written !== '') {
      expect(written).toMatch(/^HTTP\/1\.1 408 /);
      expect(written).toMatch(/"error":"request_timeout"/);
    }
    // The server is still serving.
    expect((await post(body, { 'x-signature-256': sign(body) })).status).toBe(200);
  });
});
