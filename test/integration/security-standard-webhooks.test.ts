import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookIdKey } from '../../src/ingress/webhook-replay.js';
import { directive, startHarness, type Harness } from '../support/harness.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
/** The sender's side, signed with the reference implementation. */
const sender = new Webhook(SECRET);

function signed(body: string, at = new Date(), id = `msg_${randomUUID()}`) {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': sender.sign(id, at, body),
  };
}

describe('Standard Webhooks signatures, with webhook-id replay protection', () => {
  let h: Harness;
  const send = async (body: string, headers: Record<string, string>) => {
    const response = await fetch(`${h.serve.url}/v1/events`, { method: 'POST', headers, body });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const jobCount = async (): Promise<number> =>
    Object.values(await h.serve.queue.getJobCounts()).reduce((sum, n) => sum + n, 0);

  beforeAll(async () => {
    h = await startHarness('stdwh', {
      worker: false,
      env: { WEBHOOK_TOKENS: '', WEBHOOK_STANDARD_SECRET: SECRET },
    });
    for (const name of ['first', 'second', 'third']) {
      h.sim.applyDirective(directive('swns', name, [{ namespace: 'swns', labels: {} }]));
    }
  });
  afterAll(async () => h.close());

  it('accepts a valid signature, and answers a replayed webhook-id 202 duplicate with no job', async () => {
    const body = JSON.stringify({ directive: { namespace: 'swns', name: 'first' } });
    const headers = signed(body);
    const first = await send(body, headers);
    expect(first.status).toBe(202);
    expect(first.body.duplicate).toBe(false);
    const jobs = await jobCount();

    const replay = await send(body, headers);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ duplicate: true, jobIds: first.body.jobIds });
    expect(await jobCount()).toBe(jobs);
    const claimed = webhookIdKey(h.prefix, `POST /v1/events ${headers['webhook-id']}`);
    const ttl = await h.serve.redis.ttl(claimed);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
  });

  it('does not let a replayed id carry another body (its signature fails first)', async () => {
    const body = JSON.stringify({ directive: { namespace: 'swns', name: 'second' } });
    const headers = signed(JSON.stringify({ directive: { namespace: 'swns', name: 'third' } }));
    expect((await send(body, headers)).status).toBe(401);
  });

  it('refuses a timestamp 6 minutes old, or 6 minutes ahead', async () => {
    const body = JSON.stringify({ directive: { namespace: 'swns', name: 'second' } });
    for (const shift of [-6, 6]) {
      const answer = await send(body, signed(body, new Date(Date.now() + shift * 60_000)));
      expect(answer.status, `${shift} min`).toBe(401);
      expect(answer.body.message).toMatch(/webhook-timestamp/);
    }
  });

  it('refuses a tampered body, and a signature under another secret', async () => {
    const body = JSON.stringify({ directive: { namespace: 'swns', name: 'second' } });
    const tampered = body.replace('second', 'third');
    const jobs = await jobCount();
    expect((await send(tampered, signed(body))).status).toBe(401);
    const other = new Webhook(`whsec_${randomBytes(32).toString('base64')}`);
    const at = new Date();
    const forged = {
      ...signed(body, at, 'msg_forged'),
      'webhook-signature': other.sign('msg_forged', at, body),
    };
    expect((await send(body, forged)).status).toBe(401);
    expect(await jobCount()).toBe(jobs);
  });

  it('admits no directive route with a signature: a captured signed GET replayed as an abort is a 401', async () => {
    // swns/first has a run in progress (no worker here): an abort of it would answer 202.
    // What one `status --watch` poll of swns/second would have sent, signed.
    const headers = signed('');
    delete (headers as Record<string, string>)['content-type'];
    for (const verb of ['abort', 'pause', 'retry']) {
      const replay = await fetch(`${h.serve.url}/v1/directives/swns/first/${verb}`, {
        method: 'POST',
        headers,
      });
      expect(replay.status, verb).toBe(401);
      expect(await replay.json()).toEqual({
        error: 'unauthorized',
        message: expect.stringMatching(/signature .*POST \/v1\/events.*bearer token/i),
      });
    }
    const view = await fetch(`${h.serve.url}/v1/directives/swns/second`, { headers });
    expect(view.status).toBe(401);
    const signedBody = signed('{}');
    const withBody = await fetch(`${h.serve.url}/v1/directives/swns/first/abort`, {
      method: 'POST',
      headers: signedBody,
      body: '{}',
    });
    expect(withBody.status).toBe(401);
    const annotations = (h.sim.getDirective('swns', 'first') as any).metadata.annotations ?? {};
    expect(annotations['pod-bouncer.io/paused']).toBeUndefined();
  });

  it('lets a dry run claim no webhook-id: the same delivery sent afterwards starts its run', async () => {
    const body = JSON.stringify({ directive: { namespace: 'swns', name: 'third' } });
    const headers = signed(body);
    const dry = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers,
      body,
    });
    expect(dry.status).toBe(200);
    expect(((await dry.json()) as Record<string, unknown>).dryRun).toBe(true);
    const genuine = await send(body, headers);
    expect(genuine.status).toBe(202);
    expect(genuine.body).toMatchObject({ directive: 'swns/third', duplicate: false });
    expect(genuine.body.jobIds).toHaveLength(1);
    // Nothing is kept of a dry run in Redis, its webhook-id included.
    const another = signed(body);
    const planned = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: another,
      body,
    });
    expect(planned.status).toBe(200);
    const key = webhookIdKey(h.prefix, `POST /v1/events ${another['webhook-id']}`);
    expect(await h.serve.redis.exists(key)).toBe(0);
  });

  it('releases the id of a delivery that changed nothing, so the retry is handled afresh', async () => {
    const body = JSON.stringify({ directive: { namespace: 'swns', name: 'not-yet' } });
    const headers = signed(body);
    expect((await send(body, headers)).status).toBe(404);
    h.sim.applyDirective(directive('swns', 'not-yet', [{ namespace: 'swns', labels: {} }]));
    const retried = await send(body, headers);
    expect(retried.status).toBe(202);
    expect(retried.body.duplicate).toBe(false);
  });
});
