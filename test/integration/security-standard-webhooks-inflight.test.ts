import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, type Harness } from '../support/harness.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const sender = new Webhook(SECRET);

function signed(body: string, id = `msg_${randomUUID()}`) {
  const at = new Date();
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': sender.sign(id, at, body),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The directive read of the first delivery is held this long by the simulator. */
const HELD_MS = 1500;

describe('a repeated webhook-id while its first delivery is in flight', () => {
  let h: Harness;
  const send = async (body: string, headers: Record<string, string>) => {
    const response = await fetch(`${h.serve.url}/v1/events`, { method: 'POST', headers, body });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as Record<string, any>,
    };
  };
  const jobCount = async (): Promise<number> =>
    Object.values(await h.serve.queue.getJobCounts()).reduce((sum, n) => sum + n, 0);

  beforeAll(async () => {
    h = await startHarness('stdwhfly', {
      worker: false,
      env: { WEBHOOK_TOKENS: '', WEBHOOK_STANDARD_SECRET: SECRET },
    });
    for (const name of ['held', 'lost']) {
      h.sim.applyDirective(directive('flyns', name, [{ namespace: 'flyns', labels: {} }]));
    }
  });
  afterEach(() => h.sim.setFaults(null));
  afterAll(async () => h.close());

  it('waits for the first answer and gets it whole, as a duplicate', async () => {
    const body = JSON.stringify({ directive: { namespace: 'flyns', name: 'held' } });
    const headers = signed(body);
    const jobs = await jobCount();
    h.sim.setFaults({ latencyMs: HELD_MS, methods: ['GET'], resources: ['podbouncedirectives'] });
    const first = send(body, headers);
    await sleep(500);
    const repeat = await send(body, headers);
    const answered = await first;
    expect(answered.status).toBe(202);
    expect(answered.body).toMatchObject({ directive: 'flyns/held', duplicate: false });
    expect(repeat.status).toBe(202);
    expect(repeat.body).toEqual({ ...answered.body, duplicate: true });
    expect(await jobCount()).toBe(jobs + 1);
  });

  it('answers 503 with Retry-After when the first fails, and handles a later retry afresh', async () => {
    const body = JSON.stringify({ directive: { namespace: 'flyns', name: 'lost' } });
    const headers = signed(body);
    h.sim.setFaults({
      latencyMs: HELD_MS,
      errorRate: 1,
      status: 503,
      methods: ['GET'],
      resources: ['podbouncedirectives'],
    });
    const first = send(body, headers);
    await sleep(500);
    const repeat = await send(body, headers);
    const failed = await first;
    expect(failed.status).toBe(503);
    expect(repeat.status).toBe(503);
    expect(repeat.retryAfter).not.toBeNull();
    expect(repeat.body).toEqual({ error: 'unavailable', message: expect.any(String) });
    h.sim.setFaults(null);
    const retried = await send(body, headers);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ directive: 'flyns/lost', duplicate: false });
    expect(retried.body.jobIds).toHaveLength(1);
  });
});
