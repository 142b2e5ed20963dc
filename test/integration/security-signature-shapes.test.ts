import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { dripRequest, rawRequest } from '../support/raw-http.js';
import { onePodDirective } from '../support/workloads.js';

/**
 * A signature header that can never verify is refused before the body is read: hashing 1 MB for
 * a request that cannot be admitted would let a stranger spend the server's CPU. The answer is the
 * 401 a signature that does not match gets, so it tells nothing of which check failed. Proven as
 * security-unread-bodies does: a body that never finishes arriving can only be answered by a
 * server that does not wait for it (the body timeout is set far beyond the client's patience).
 */
const HMAC_SECRET = 'hmac-secret-shape-9d2f';
const KEY = randomBytes(32);
const hex64 = (): string => randomBytes(32).toString('hex');
const v1 = (): string => `v1,${randomBytes(32).toString('base64')}`;
const INVALID = { error: 'unauthorized', message: 'The credentials are not valid.' };

/** Headers of a Standard Webhooks delivery, with the signature list given. */
const standard = (signature: string): Record<string, string> => ({
  'webhook-id': `msg_${randomUUID()}`,
  'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
  'webhook-signature': signature,
});
const hmac = (signature: string): Record<string, string> => ({ 'x-signature-256': signature });

/** The only shapes that can verify (DESIGN §2), as a sender of either scheme must send them. */
const HMAC_SHAPE = /^sha256=[0-9a-fA-F]{64}$/;
const V1_SHAPE = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
const canVerify = (headers: Record<string, string>): boolean => {
  const given = headers['x-signature-256'];
  if (given !== undefined) return HMAC_SHAPE.test(given.trim());
  return (headers['webhook-signature'] ?? '')
    .trim()
    .split(' ')
    .some((entry) => entry.split(',')[0] === 'v1' && V1_SHAPE.test(entry.split(',')[1] ?? ''));
};

const NEVER: Array<[string, Record<string, string>]> = [
  ['a hex signature of non-hex characters', hmac('sha256=zz')],
  ['an empty HMAC signature', hmac('sha256=')],
  ['63 hex digits', hmac(`sha256=${hex64().slice(1)}`)],
  ['65 hex digits', hmac(`sha256=${hex64()}0`)],
  ['a non-hex digit among 64', hmac(`sha256=g${hex64().slice(1)}`)],
  ['an upper-case prefix', hmac(`SHA256=${hex64()}`)],
  ['no prefix', hmac(hex64())],
  ['another algorithm', hmac(`sha1=${hex64().slice(24)}`)],
  ['two HMAC signatures in one header', hmac(`sha256=${hex64()}, sha256=${hex64()}`)],
  ['an empty signature list', standard('')],
  ['a version other than v1', standard(v1().replace('v1,', 'v2,'))],
  ['an entry without its version', standard(v1().slice(3))],
  ['the base64 of 31 bytes', standard(`v1,${randomBytes(31).toString('base64')}`)],
  ['the base64 of 33 bytes', standard(`v1,${randomBytes(33).toString('base64')}`)],
  ['URL-safe base64', standard(`v1,-_${v1().slice(5)}`)],
  ['base64 without its padding', standard(v1().slice(0, -1))],
  ['only malformed entries', standard(`v1,zz v1a,${v1().slice(3)} v1`)],
  ['a stale timestamp', { ...standard(v1()), 'webhook-timestamp': '1700000000' }],
  ['a timestamp that is not an integer', { ...standard(v1()), 'webhook-timestamp': '1.5e9' }],
  ['no webhook-id', { ...standard(v1()), 'webhook-id': '' }],
];

describe('a signature header that can never verify is refused before the body is read', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sigshape', {
      worker: false,
      env: {
        WEBHOOK_HMAC_SECRET: HMAC_SECRET,
        WEBHOOK_STANDARD_SECRET: `whsec_${KEY.toString('base64')}`,
        BODY_TIMEOUT_SECONDS: '60',
      },
    });
    onePodDirective(h, 'sigshape', 'certs');
  });
  afterAll(async () => h?.close());

  const drip = (headers: Record<string, string>, giveUpMs?: number) =>
    dripRequest(h.serve.url, 'POST', '/v1/events', headers, giveUpMs ? { giveUpMs } : {});
  const post = (headers: Record<string, string>, body: string) =>
    rawRequest(
      h.serve.url,
      'POST',
      '/v1/events?dryRun=true',
      { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
      body,
    );

  it.each(NEVER)('%s: a 401 before the body arrives, and the connection closed', async (_, hs) => {
    expect(await drip(hs)).toEqual({ status: 401, closed: true });
  });

  it('answers a malformed signature as one that does not match, with the same body', async () => {
    const body = '{"a": [[[[';
    const wrong = await post(hmac(`sha256=${hex64()}`), body);
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body)).toEqual(INVALID);
    for (const [what, headers] of NEVER.slice(0, 17)) {
      const answer = await post(headers, body);
      expect(answer.status, what).toBe(401);
      expect(JSON.parse(answer.body), what).toEqual(INVALID);
    }
  });

  it('still reads the body of a signature that could verify, and admits a valid one', async () => {
    // Upper-case hex, and a list with one well-formed entry among junk, are checked over the body.
    for (const headers of [hmac(`sha256=${hex64().toUpperCase()}`), standard(`zz ${v1()} v1`)]) {
      expect(await drip(headers, 1000)).toEqual({ status: undefined, closed: false });
    }
    const body = JSON.stringify({ directive: { namespace: 'sigshape', name: 'certs' } });
    const digest = createHmac('sha256', HMAC_SECRET).update(body).digest('hex');
    const admitted = await post(hmac(`sha256=${digest.toUpperCase()}`), body);
    expect(admitted.status, admitted.body).toBe(200);
    const headers = standard('');
    const signed = createHmac('sha256', KEY)
      .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
      .digest('base64');
    headers['webhook-signature'] = `v1,zz v2,${signed} v1,${signed}`;
    const listed = await post(headers, body);
    expect(listed.status, listed.body).toBe(200);
  });

  it('refuses every generated shape that cannot verify before its body is read', async () => {
    const near = (good: () => string, alphabet: string) =>
      fc
        .tuple(fc.nat(), fc.constantFrom('drop', 'insert', 'replace'), fc.constantFrom(...alphabet))
        .map(([at, how, c]) => {
          const value = good();
          const i = at % (value.length + 1);
          const rest = value.slice(how === 'insert' ? i : i + 1);
          return value.slice(0, i) + (how === 'drop' ? '' : c) + rest;
        });
    const shapes = fc.oneof(
      near(() => `sha256=${hex64()}`, 'aF9g=Z ,-').map(hmac),
      near(v1, 'v12,+/=A_- ').map(standard),
      fc.string({ unit: fc.constantFrom(...'sha256=v1,0aF+/ '), maxLength: 80 }).map(hmac),
    );
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(shapes, async (headers) => {
        if (canVerify(headers)) return;
        refused += 1;
        expect(await drip(headers), JSON.stringify(headers)).toEqual({ status: 401, closed: true });
      }),
      { numRuns: 150 },
    );
    expect(refused).toBeGreaterThan(100);
  });
});
