import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, TOKEN, type Harness } from '../support/harness.js';
import { onePodDirective } from '../support/workloads.js';

describe('bad input', () => {
  let h: Harness;
  let statusBefore: string;
  beforeAll(async () => {
    h = await startHarness('badinput', { env: { BODY_LIMIT_BYTES: '4096' } });
    onePodDirective(h, 'istio-system', 'mesh');
    statusBefore = JSON.stringify(
      (h.sim.getDirective('istio-system', 'mesh') as any).status ?? null,
    );
  });
  afterAll(async () => h.close());

  const send = (body: string, headers: Record<string, string>) =>
    fetch(`${h.serve.url}/v1/events`, { method: 'POST', headers, body });
  const json = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
  const ref = JSON.stringify({ directive: { namespace: 'istio-system', name: 'mesh' } });

  // The last app=web would bounce every web pod when the first app=a was meant.
  const twiceLabelled = directive('istio-system', 'twice', [
    {
      namespace: 'istio-system',
      labels: [
        { key: 'app', value: 'a' },
        { key: 'app', value: 'web' },
      ],
    },
  ]);

  const cases: Array<[string, () => Promise<Response>, number, string]> = [
    ['malformed JSON', () => send('{"directive": ', json), 400, 'bad_request'],
    [
      'malformed JSON without a token (refused before it is read)',
      () => send('{"directive": ', { 'content-type': 'application/json' }),
      401,
      'unauthorized',
    ],
    [
      'text/plain with a wrong token',
      () => send(ref, { 'content-type': 'text/plain', authorization: 'Bearer nope' }),
      401,
      'unauthorized',
    ],
    ['a body of no known shape', () => send('{"hello": "world"}', json), 400, 'bad_request'],
    [
      'a bad issuedAt',
      () =>
        send(
          JSON.stringify({
            directive: { namespace: 'istio-system', name: 'mesh' },
            issuedAt: 'yesterday',
          }),
          json,
        ),
      400,
      'bad_request',
    ],
    [
      'a missing token',
      () => send(ref, { 'content-type': 'application/json' }),
      401,
      'unauthorized',
    ],
    [
      'a wrong token',
      () => send(ref, { ...json, authorization: 'Bearer nope' }),
      401,
      'unauthorized',
    ],
    [
      'an unknown directive',
      () => send(JSON.stringify({ directive: { namespace: 'istio-system', name: 'nope' } }), json),
      404,
      'not_found',
    ],
    [
      'an empty podsToBounce',
      () => send(JSON.stringify({ directive: directive('istio-system', 'empty', []) }), json),
      422,
      'invalid_directive',
    ],
    [
      'a label value that would widen the selector',
      () =>
        send(
          JSON.stringify({
            directive: directive('istio-system', 'wide', [
              { namespace: 'istio-system', labels: { app: 'a,b!=c' } },
            ]),
          }),
          json,
        ),
      422,
      'invalid_directive',
    ],
    [
      'list labels that give a key twice',
      () => send(JSON.stringify({ directive: twiceLabelled }), json),
      400,
      'bad_request',
    ],
    [
      'an over-limit body',
      () =>
        send(
          JSON.stringify({
            directive: { namespace: 'istio-system', name: 'mesh' },
            pad: 'x'.repeat(8000),
          }),
          json,
        ),
      413,
      'payload_too_large',
    ],
    [
      'text/plain',
      () => send(ref, { ...json, 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    ],
    [
      'GET on the events endpoint',
      () => fetch(`${h.serve.url}/v1/events`, { headers: json }),
      405,
      'method_not_allowed',
    ],
  ];

  it.each(cases)(
    '%s is refused with a JSON body that says why',
    async (_name, request, status, code) => {
      const response = await request();
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body: any = await response.json();
      expect(body.error).toBe(code);
      expect(typeof body.message).toBe('string');
      expect(body.message.length).toBeGreaterThan(10);
      if (status === 401) expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    },
  );

  it('changed nothing: no job, no status change, no deletion, no new directive', async () => {
    const counts = await h.serve.queue.getJobCounts();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
    expect(JSON.stringify((h.sim.getDirective('istio-system', 'mesh') as any).status ?? null)).toBe(
      statusBefore,
    );
    expect(h.sim.getDirective('istio-system', 'empty')).toBeUndefined();
    expect(h.sim.getDirective('istio-system', 'wide')).toBeUndefined();
    expect(h.sim.getDirective('istio-system', 'twice')).toBeUndefined();
    expect(h.sim.deletedPods()).toEqual([]);
    const health = await fetch(`${h.serve.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('names the entry and the label key given twice', async () => {
    const response = await send(JSON.stringify({ directive: twiceLabelled }), json);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'bad_request',
      message: expect.stringContaining(
        'directive.spec.podsToBounce[0].labels[1].key: repeats the label key "app"',
      ),
    });
    const counts = await h.serve.queue.getJobCounts();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('names the offending field', async () => {
    const response = await send(
      JSON.stringify({ directive: { namespace: 'Not_A_Namespace', name: 'x' } }),
      json,
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).message).toContain('directive.namespace');
  });
});
