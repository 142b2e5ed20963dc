import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, stopCli } from '../support/processes.js';
import { directive, eventually, startHarness, TOKEN, type Harness } from '../support/harness.js';
import { onePodDirective } from '../support/workloads.js';
import {
  projectedToken,
  registerServiceAccount,
  tokenReviewEnv,
} from '../support/service-accounts.js';

const HMAC_SECRET = 'hmac-secret-5f1d9c2e7a';
const ALLOWED_SA_TOKEN = projectedToken('cert-manager:issuer');
const OTHER_SA_TOKEN = projectedToken('default:intruder');
const WRONG_AUDIENCE_TOKEN = projectedToken('cert-manager:issuer', 'some-other-api');

function sign(body: string, secret = HMAC_SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

describe('authentication of the events endpoint (all modes combined)', () => {
  let h: Harness;
  const ref = JSON.stringify({ directive: { namespace: 'authns', name: 'certs' } });
  beforeAll(async () => {
    h = await startHarness('auth', {
      env: {
        WEBHOOK_TOKENS: `${TOKEN},second-token-77`,
        WEBHOOK_HMAC_SECRET: HMAC_SECRET,
        ...tokenReviewEnv('cert-manager:issuer'),
      },
    });
    registerServiceAccount(h, ALLOWED_SA_TOKEN, 'cert-manager:issuer');
    registerServiceAccount(h, OTHER_SA_TOKEN, 'default:intruder');
    registerServiceAccount(h, WRONG_AUDIENCE_TOKEN, 'cert-manager:issuer', ['some-other-api']);
    onePodDirective(h, 'authns', 'certs');
  });
  afterAll(async () => h.close());

  const send = async (headers: Record<string, string>, body = ref, method = 'POST') => {
    const response = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: method === 'GET' || method === 'HEAD' ? undefined : body,
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? JSON.parse(text) : undefined,
    };
  };

  const accepted: Array<[string, () => Record<string, string>]> = [
    ['a static bearer token', () => ({ authorization: `Bearer ${TOKEN}` })],
    ['the second static token', () => ({ authorization: 'Bearer second-token-77' })],
    ['a lower-case bearer scheme', () => ({ authorization: `bearer ${TOKEN}` })],
    ['an HMAC-SHA256 signature of the raw body', () => ({ 'x-signature-256': sign(ref) })],
    ['an allowed service-account token', () => ({ authorization: `Bearer ${ALLOWED_SA_TOKEN}` })],
  ];
  it.each(accepted)('accepts %s', async (_label, headers) => {
    const answer = await send(headers());
    expect(answer.status).toBe(200);
    // The plan of this very directive: a refusal, or any other 200, has no such body.
    expect(answer.body).toMatchObject({ dryRun: true, directive: 'authns/certs' });
    expect(answer.body.selectors).toHaveLength(1);
    expect(answer.body.selectors[0].pods).toHaveLength(1);
  });

  const refused: Array<[string, () => Record<string, string>, number]> = [
    ['no credentials', () => ({}), 401],
    ['an unknown bearer token', () => ({ authorization: 'Bearer not-a-token' }), 401],
    ['a token prefix', () => ({ authorization: `Bearer ${TOKEN.slice(0, -1)}` }), 401],
    ['a token with a suffix', () => ({ authorization: `Bearer ${TOKEN}x` }), 401],
    ['basic auth with the token', () => ({ authorization: `Basic ${TOKEN}` }), 401],
    ['two tokens in one header', () => ({ authorization: `Bearer ${TOKEN} ${TOKEN}` }), 401],
    ['a signature of another body', () => ({ 'x-signature-256': sign('{}') }), 401],
    ['a signature with the wrong secret', () => ({ 'x-signature-256': sign(ref, 'nope') }), 401],
    ['a signature without its prefix', () => ({ 'x-signature-256': sign(ref).slice(7) }), 401],
    ['an empty signature', () => ({ 'x-signature-256': 'sha256=' }), 401],
    [
      'a token for another audience',
      () => ({ authorization: `Bearer ${WRONG_AUDIENCE_TOKEN}` }),
      401,
    ],
    [
      'a valid service account off the allow-list',
      () => ({ authorization: `Bearer ${OTHER_SA_TOKEN}` }),
      403,
    ],
  ];
  it.each(refused)('refuses %s', async (_label, headers, status) => {
    const answer = await send(headers());
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ error: expect.any(String), message: expect.any(String) });
    if (status === 401) expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
    if (status === 403) expect(answer.body.error).toBe('forbidden');
  });

  it('signs the exact bytes: the same JSON re-serialised does not verify', async () => {
    const spaced = JSON.stringify(JSON.parse(ref), null, 2);
    expect((await send({ 'x-signature-256': sign(ref) }, spaced)).status).toBe(401);
    expect((await send({ 'x-signature-256': sign(spaced) }, spaced)).status).toBe(200);
  });

  it('guards the directive routes with tokens, static or reviewed, and never a signature', async () => {
    const anonymous = await fetch(`${h.serve.url}/v1/directives/authns/certs`);
    expect(anonymous.status).toBe(401);
    const retry = await fetch(`${h.serve.url}/v1/directives/authns/certs/retry`, {
      method: 'POST',
    });
    expect(retry.status).toBe(401);
    expect((await h.get('/v1/directives/authns/certs')).status).toBe(200);
    const reviewed = await fetch(`${h.serve.url}/v1/directives/authns/certs`, {
      headers: { authorization: `Bearer ${ALLOWED_SA_TOKEN}` },
    });
    expect(reviewed.status).toBe(200);
    const signed = await fetch(`${h.serve.url}/v1/directives/authns/certs/pause`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-256': sign('{}') },
      body: '{}',
    });
    expect(signed.status).toBe(401);
    expect(((await signed.json()) as { message: string }).message).toMatch(/bearer token/);
  });

  it('answers 405 with Allow: POST to every other method on /v1/events', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const answer = await send({ authorization: `Bearer ${TOKEN}` }, ref, method);
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow'), method).toBe('POST');
      expect(answer.body.error, method).toBe('method_not_allowed');
    }
  });

  it('applies the default 1 MiB body limit (413 above it)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const padding = (size: number) =>
      JSON.stringify({ directive: { namespace: 'authns', name: 'certs' }, pad: 'x'.repeat(size) });
    const over = await send(auth, padding(1_048_576));
    expect(over.status).toBe(413);
    expect(over.body.error).toBe('payload_too_large');
    const under = await send(auth, padding(1_048_576 - 200));
    expect(under.status).not.toBe(413);
  });

  it('never lets a label value or key widen a selector (422, no pod touched)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const hostile = [
      { app: 'istiod,app!=istiod' },
      { app: 'a,b!=c' },
      { 'app in (x),y': 'z' },
      { app: 'istiod)' },
      { 'app=istiod,x': 'y' },
    ];
    for (const labels of hostile) {
      const inline = JSON.stringify({
        directive: directive('authns', 'hostile', [{ namespace: 'authns', labels }]),
      });
      const answer = await send(auth, inline);
      expect(answer.status, JSON.stringify(labels)).toBe(422);
    }
    for (const namespace of ['authns,kube-system', '../kube-system', 'Authns']) {
      const answer = await send(
        auth,
        JSON.stringify({ directive: directive('authns', 'hostile', [{ namespace, labels: {} }]) }),
      );
      expect(answer.status, namespace).toBe(422);
    }
    expect(h.sim.deletedPods()).toEqual([]);
    const listed = h.sim.requests().filter((r) => r.resource === 'pods' && r.query.includes('!'));
    expect(listed).toEqual([]);
  });

  it('refuses to serve, naming WEBHOOK_AUTH, unless WEBHOOK_AUTH=none is explicit', async () => {
    const base = { ...h.env, PORT: '0', LOG_LEVEL: 'info' };
    const blank = {
      WEBHOOK_AUTH: '',
      WEBHOOK_TOKENS: '',
      WEBHOOK_HMAC_SECRET: '',
      WEBHOOK_TOKENREVIEW_AUDIENCE: '',
      WEBHOOK_ALLOWED_SERVICEACCOUNTS: '',
    };
    const refused = startCli('serve', { ...base, ...blank });
    const exit = await refused.exited;
    expect(exit.code).toBe(2);
    expect(refused.output()).toMatch(/WEBHOOK_AUTH must be set to "none"/);

    const open = startCli('serve', { ...base, ...blank, WEBHOOK_AUTH: 'none' });
    try {
      await eventually('the open server to listen', () =>
        /listening/.test(open.output()) ? true : undefined,
      );
      expect(open.child.exitCode).toBeNull();
    } finally {
      await stopCli(open, 'SIGTERM');
    }
  });
});
