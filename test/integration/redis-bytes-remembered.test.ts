// What a remembered delivery costs Redis: a CloudEvent's (source, id) is kept 24 hours and a
// Standard Webhooks `webhook-id` 10 minutes, each with what its repeats are answered. Against a
// directive of 1000 selectors, a fresh id must not store the answer's 1000 job ids (~57 KB) again:
// a credential sending fresh ids at its rate limit would fill Redis at ~34 MB a minute.
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEventKey } from '../../src/ingest/cloudevents.js';
import { QUEUE_NAME } from '../../src/queue/names.js';
import { directive, startHarness, type Harness } from '../support/harness.js';
import { redisBytes } from '../support/redis-bytes.js';
import { postRaw } from '../support/routers.js';

/** Bytes one remembered id may take in Redis, whatever the directive's selector count. */
const PER_ID_MAX = 1024;
const SELECTORS = 1000;
const IDS = 5;
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** Bytes per key under one kind of remembered id (`cloudevent` or `webhook-id`). */
async function bytesPerId(h: Harness, kind: string): Promise<number> {
  const { keys, bytes } = await redisBytes(`${h.prefix}:${QUEUE_NAME}:${kind}`);
  expect(keys).toBe(IDS);
  return bytes / keys;
}

describe('Redis bytes per remembered delivery id', () => {
  let h: Harness;
  const data = (name: string): string =>
    JSON.stringify({ directive: { namespace: 'istio-system', name } });

  beforeAll(async () => {
    h = await startHarness('remembered-bytes', {
      worker: false,
      env: { WEBHOOK_STANDARD_SECRET: SECRET },
    });
    const selectors = Array.from({ length: SELECTORS }, (_, i) => ({
      namespace: 'istio-system',
      labels: { app: `app-${i}` },
      waitForReplicas: 0,
    }));
    for (const name of ['large-ce', 'large-wh']) {
      h.sim.applyDirective(directive('istio-system', name, selectors));
    }
  });
  afterAll(async () => h.close());

  it('a CloudEvent id is a bounded record, and its redelivery still gets the whole answer', async () => {
    const headers = (id: string): Record<string, string> => ({
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': id,
      'ce-source': '//issuer.example.com/cert-agent',
      'ce-type': 'io.example.cert.issued.v1',
    });
    const answers = [];
    for (let i = 0; i < IDS; i += 1) {
      const answer = await postRaw(h, data('large-ce'), headers(`fresh-${i}`));
      expect(answer.status).toBe(202);
      answers.push(answer.body);
    }
    const [first] = answers;
    expect(first.jobIds).toHaveLength(SELECTORS);
    expect(first.issuedAt).toBeUndefined();

    const perId = await bytesPerId(h, 'cloudevent');
    console.log(JSON.stringify({ kind: 'cloudevent', selectors: SELECTORS, bytesPerId: perId }));
    expect(perId).toBeLessThan(PER_ID_MAX);

    // Redelivered: the answer its id got, as a duplicate, job ids in selector order.
    const again = await postRaw(h, data('large-ce'), headers('fresh-0'));
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ ...first, duplicate: true });
    expect(again.body.jobIds[SELECTORS - 1]).toMatch(new RegExp(`\\.s${SELECTORS - 1}$`));
  });

  it('a CloudEvent record that kept the whole answer, as records did before, still answers it', async () => {
    const id = 'kept-whole-0001';
    const source = '//issuer.example.com/cert-agent';
    const earlier = {
      directive: 'istio-system/large-ce',
      uid: 'uid-of-then',
      generation: 1,
      selectors: 1,
      jobIds: ['uid-of-then.g1.r0.s0'],
      duplicate: false,
    };
    // The harness's one token is `token0` (WEBHOOK_TOKENS entries without a name).
    const record = { sender: 'token0', directive: earlier.directive, answer: earlier };
    await h.serve.redis.set(cloudEventKey(h.prefix, { source, id }), JSON.stringify(record));
    const again = await postRaw(h, data('large-ce'), {
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': id,
      'ce-source': source,
      'ce-type': 'io.example.cert.issued.v1',
    });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ ...earlier, duplicate: true });
  });

  it('a webhook-id is a bounded record, and its replay still gets the whole answer', async () => {
    const sender = new Webhook(SECRET);
    const body = data('large-wh');
    const signed = (id: string): Record<string, string> => {
      const at = new Date();
      return {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': sender.sign(id, at, body),
      };
    };
    const send = async (headers: Record<string, string>) => {
      const response = await fetch(`${h.serve.url}/v1/events`, { method: 'POST', headers, body });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };
    const deliveries = Array.from({ length: IDS }, () => signed(`msg_${randomUUID()}`));
    const answers = [];
    for (const headers of deliveries) {
      const answer = await send(headers);
      expect(answer.status).toBe(202);
      answers.push(answer.body);
    }
    expect(answers[0]!.jobIds).toHaveLength(SELECTORS);

    const perId = await bytesPerId(h, 'webhook-id');
    console.log(JSON.stringify({ kind: 'webhook-id', selectors: SELECTORS, bytesPerId: perId }));
    expect(perId).toBeLessThan(PER_ID_MAX);

    const replay = await send(deliveries[0]!);
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ ...answers[0], duplicate: true });
  });
});
