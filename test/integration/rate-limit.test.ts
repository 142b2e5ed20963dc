import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startServe } from '../../src/runtime/serve.js';
import { commandsDuring } from '../support/redis-monitor.js';
import { directive, startHarness, type Harness } from '../support/harness.js';

const LIMIT = 5;
const ISSUER = 'issuer-token-2b3c4d5e6f7a8b9c';
const CI = 'ci-token-9c8b7a6f5e4d3c2b';
const HMAC_SECRET = 'hmac-secret-1a2b3c4d5e6f';
/** A watch event of a deletion: acknowledged, and nothing else done (DESIGN §2, shape 3). */
const DELETED = { type: 'DELETED', object: directive('rl', 'gone', [{ namespace: 'rl' }]) };

/**
 * RATE_LIMIT_PER_MINUTE (DESIGN §2): each credential makes at most that many requests in any 60 s,
 * across api replicas; over it, 429 with Retry-After and nothing done. It is decided by counts:
 * LIMIT requests in a burst take far less than the window, so no request here leaves it.
 */
describe('a rate limit per credential', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('rate-limit', {
      worker: false,
      env: {
        WEBHOOK_TOKENS: `issuer=${ISSUER},ci=${CI}`,
        WEBHOOK_HMAC_SECRET: HMAC_SECRET,
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
      },
    });
    h.sim.addWorkload({
      namespace: 'rl',
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'app' },
      replicas: 1,
    });
    h.sim.applyDirective(directive('rl', 'certs', [{ namespace: 'rl', labels: { app: 'app' } }]));
  });
  afterAll(async () => h.close());

  const send = (url: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then(async (response) => ({
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as any,
    }));
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('answers the request after the limit 429 with Retry-After, does nothing, and lets another credential through', async () => {
    for (let i = 0; i < LIMIT; i += 1) {
      expect((await send(h.serve.url, DELETED, bearer(ISSUER))).status).toBe(202);
    }
    // A real event: refused before anything is read, applied or enqueued.
    h.sim.resetRequests();
    const over = await send(
      h.serve.url,
      { directive: { namespace: 'rl', name: 'certs' } },
      bearer(ISSUER),
    );
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: 'rate_limited', message: expect.any(String) });
    expect(over.body.message).toMatch(/RATE_LIMIT_PER_MINUTE/);
    const seconds = Number(over.retryAfter);
    expect(Number.isInteger(seconds)).toBe(true);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(h.sim.requests()).toEqual([]);
    expect(await h.serve.queue.getJobCounts()).toMatchObject({
      waiting: 0,
      prioritized: 0,
      delayed: 0,
    });
    expect(h.sim.getDirective('rl', 'certs')?.status).toBeUndefined();

    // The directive routes count against the same credential.
    const read = await fetch(`${h.serve.url}/v1/directives/rl/certs`, { headers: bearer(ISSUER) });
    expect(read.status).toBe(429);
    expect(read.headers.get('retry-after')).toMatch(/^\d+$/);

    // Another credential has a count of its own.
    const other = await send(
      h.serve.url,
      { directive: { namespace: 'rl', name: 'certs' } },
      bearer(CI),
    );
    expect(other.status).toBe(202);
    expect(other.body.duplicate).toBe(false);
  });

  it('counts a signature scheme as one credential, after its signature is verified', async () => {
    const raw = JSON.stringify(DELETED);
    const signature = `sha256=${createHmac('sha256', HMAC_SECRET).update(raw).digest('hex')}`;
    const signed = () =>
      h.post(undefined, { token: null, raw, headers: { 'x-signature-256': signature } });
    const forged = () =>
      h.post(undefined, {
        token: null,
        raw,
        headers: { 'x-signature-256': `sha256=${'0'.repeat(64)}` },
      });
    // Refused signatures are not counted: they cannot use up the scheme's allowance.
    for (let i = 0; i < LIMIT * 2; i += 1) expect((await forged()).status).toBe(401);
    for (let i = 0; i < LIMIT; i += 1) expect((await signed()).status).toBe(202);
    const over = await signed();
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('rate_limited');
  });

  it('costs a request without valid credentials no Redis command', async () => {
    const commands = await commandsDuring(h, async () => {
      for (const headers of [{}, bearer('not-a-token-0123456789abcdef')]) {
        const answer = await send(h.serve.url, DELETED, headers);
        expect(answer.status).toBe(401);
      }
      const read = await fetch(`${h.serve.url}/v1/directives/rl/certs`);
      expect(read.status).toBe(401);
    });
    expect(commands).toEqual([]);
  });

  it('counts across api replicas: the count is in Redis', async () => {
    const replica = await startServe(h.config, createLogger('silent'), h.kube);
    try {
      // ci made one request above; the two apis share its count.
      for (let i = 1; i < LIMIT; i += 1) {
        const url = i % 2 === 0 ? h.serve.url : replica.url;
        expect((await send(url, DELETED, bearer(CI))).status).toBe(202);
      }
      expect((await send(replica.url, DELETED, bearer(CI))).status).toBe(429);
      expect((await send(h.serve.url, DELETED, bearer(CI))).status).toBe(429);
    } finally {
      await replica.close();
    }
  });
});
