// One credential cannot fill Redis with CloudEvent ids: each fresh id is remembered for 24 hours,
// so at RATE_LIMIT_PER_MINUTE a credential sending fresh ids (duplicates of one run, say) would
// keep ~864,000 of them. CLOUDEVENT_IDS_PER_DAY bounds the new ids a credential may have
// remembered; beyond it a new id is a 429 that changes nothing, while redeliveries, conflicts and
// other credentials are answered as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEventKey } from '../../src/ingest/cloudevents.js';
import { QUEUE_NAME } from '../../src/queue/names.js';
import { directive, startHarness, type Harness } from '../support/harness.js';
import { redisBytes } from '../support/redis-bytes.js';

const BUDGET = 12;
const OVER = 25;
const CI = 'ci-token-0123456789abcdef';
const ISSUER = 'issuer-token-0123456789abcdef';
const SOURCE = '//ci.example.com/fill';

describe('CLOUDEVENT_IDS_PER_DAY: the CloudEvent ids a credential makes Redis remember', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('ce-budget', {
      worker: false,
      env: {
        WEBHOOK_TOKENS: `ci=${CI},issuer=${ISSUER}`,
        CREDENTIAL_NAMESPACES: 'ci=apps',
        CLOUDEVENT_IDS_PER_DAY: String(BUDGET),
      },
    });
    h.sim.applyDirective(directive('apps', 'fill', [{ namespace: 'apps', labels: { app: 'f' } }]));
  });
  afterAll(async () => h.close());

  const send = async (token: string, id: string, name = 'fill', source = SOURCE) => {
    const response = await fetch(`${h.serve.url}/v1/events`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'ce-specversion': '1.0',
        'ce-id': id,
        'ce-source': source,
        'ce-type': 't',
      },
      body: JSON.stringify({ directive: { namespace: 'apps', name } }),
    });
    return {
      status: response.status,
      body: (await response.json()) as any,
      headers: response.headers,
    };
  };
  /** Keys and bytes under the prefix, but the credentials' request counts (their last 60 s). */
  const usage = () => redisBytes(h.prefix, (key) => key.includes(`:${QUEUE_NAME}:rate:`));
  const remembered = () => redisBytes(`${h.prefix}:${QUEUE_NAME}:cloudevent`);

  it('a failed event remembers nothing and spends nothing of the budget', async () => {
    for (let i = 0; i < BUDGET + 3; i += 1) {
      expect((await send(CI, `missing-${i}`, 'none')).status).toBe(404);
    }
    expect((await remembered()).keys).toBe(0);
  });

  it('bounds what Redis keeps, refuses the fresh ids beyond it, and answers everything else', async () => {
    const first = await send(CI, 'fill-0');
    expect(first.status).toBe(202);
    expect(first.body.duplicate).toBe(false);
    for (let i = 1; i < BUDGET; i += 1) {
      const answer = await send(CI, `fill-${i}`);
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual({ ...first.body, duplicate: true });
    }
    const full = await remembered();
    expect(full.keys).toBe(BUDGET);
    const before = await usage();

    for (let i = 0; i < OVER; i += 1) {
      const refused = await send(CI, `over-${i}`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
      expect(refused.body.error).toBe('rate_limited');
      expect(refused.body.message).toMatch(/CLOUDEVENT_IDS_PER_DAY/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(25 * 3600);
    }
    // Nothing more is kept, however many fresh ids the credential sends.
    const after = await usage();
    expect(after.keys).toBe(before.keys);
    expect(after.bytes).toBe(before.bytes);
    expect((await remembered()).keys).toBe(BUDGET);
    const budgetBytes = (await redisBytes(`${h.prefix}:${QUEUE_NAME}:cloudevent-ids`)).bytes;
    console.log(
      JSON.stringify({
        budget: BUDGET,
        sent: BUDGET + OVER,
        ...full,
        bytesPerId: full.bytes / BUDGET,
        budgetBytes,
      }),
    );

    // A remembered id is still a duplicate with the first answer, and kept for 24 hours.
    for (const id of ['fill-0', `fill-${BUDGET - 1}`]) {
      const again = await send(CI, id);
      expect(again.status).toBe(202);
      expect(again.body).toEqual({ ...first.body, duplicate: true });
    }
    const ttl = await h.serve.redis.ttl(cloudEventKey(h.prefix, { source: SOURCE, id: 'fill-0' }));
    expect(ttl).toBeGreaterThan(24 * 3600 - 120);
    expect(ttl).toBeLessThanOrEqual(24 * 3600);

    // Another credential is unaffected; an id one of them used is a 409 to the other, budget or not.
    const issuer = await send(ISSUER, 'issuer-0');
    expect(issuer.status).toBe(202);
    expect(issuer.body).toEqual({ ...first.body, duplicate: true });
    expect((await send(ISSUER, 'fill-1')).status).toBe(409);
    const conflict = await send(CI, 'issuer-0');
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('cloudevent_id_conflict');
    expect((await remembered()).keys).toBe(BUDGET + 1);
  });
});
