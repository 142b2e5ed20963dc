import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IssuerKeys, keysOf } from '../../src/ingress/issuer-keys.js';
import { TokenVerdicts } from '../../src/ingress/token-verdicts.js';
import { issuerJwks, serviceAccountJwt } from '../../src/sim/service-account-token.js';

const AUDIENCE = 'pod-bouncer';
const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const minted = (): string =>
  serviceAccountJwt({ namespace: 'cert-manager', name: 'issuer', audiences: [AUDIENCE] });
const [, claims] = minted().split('.');

/** A key set fetcher that counts its calls and answers what `answer` gives at the time. */
function fetcher(answer: () => unknown) {
  const calls = { count: 0 };
  const fetch = async () => {
    calls.count += 1;
    const given = answer();
    if (given instanceof Error) throw given;
    return given;
  };
  return { calls, fetch };
}

function warnings() {
  const lines: string[] = [];
  return { lines, log: { warn: (_fields: object, message: string) => void lines.push(message) } };
}

describe('IssuerKeys', () => {
  it('tells a token the issuer signed from the same claims with another signature', async () => {
    const { calls, fetch } = fetcher(issuerJwks);
    const keys = new IssuerKeys(fetch, warnings().log);
    const genuine = minted();
    const [head, payload] = genuine.split('.');
    expect(await keys.check(genuine)).toBe('valid');
    expect(
      await keys.check(`${head}.${payload}.${Buffer.alloc(256, 7).toString('base64url')}`),
    ).toBe('forged');
    // The issuer's signature over other claims.
    expect(await keys.check(`${head}.${claims}.${genuine.split('.')[2]}`)).toBe('forged');
    expect(calls.count).toBe(1);
  });

  it('takes no algorithm the issuer does not sign with (none, HMAC with the public key)', async () => {
    const { fetch } = fetcher(issuerJwks);
    const keys = new IssuerKeys(fetch, warnings().log);
    const n = (issuerJwks().keys[0] as { n: string }).n;
    const hs = `${part({ alg: 'HS256', kid: 'pod-bouncer-sim' })}.${claims}`;
    const mac = createHmac('sha256', n).update(hs).digest('base64url');
    expect(await keys.check(`${hs}.${mac}`)).toBe('forged');
    expect(await keys.check(`${part({ alg: 'none' })}.${claims}.c2ln`)).toBe('forged');
  });

  it('verifies ES256 signatures with an EC key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'ec', use: 'sig' };
    const keys = new IssuerKeys(async () => ({ keys: [jwk] }), warnings().log);
    const signed = `${part({ alg: 'ES256', kid: 'ec' })}.${claims}`;
    const signature = sign('sha256', Buffer.from(signed), {
      key: privateKey,
      dsaEncoding: 'ieee-p1363',
    });
    expect(await keys.check(`${signed}.${signature.toString('base64url')}`)).toBe('valid');
    expect(await keys.check(minted())).toBe('forged');
  });

  it('fetches again for an unknown kid, at most once per interval', async () => {
    const { calls, fetch } = fetcher(issuerJwks);
    const keys = new IssuerKeys(fetch, warnings().log, { minFetchIntervalMs: 50 });
    const unknownKid = (i: number) => `${part({ alg: 'RS256', kid: `k${i}` })}.${claims}.c2ln`;
    expect(await keys.check(minted())).toBe('valid');
    await Promise.all(Array.from({ length: 20 }, (_, i) => keys.check(unknownKid(i))));
    expect(calls.count).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await keys.check(unknownKid(99))).toBe('forged');
    expect(calls.count).toBe(2);
  });

  it('leaves tokens unchecked, with a warning, until the keys can be fetched', async () => {
    let answer: unknown = new Error('forbidden');
    const { calls, fetch } = fetcher(() => answer);
    const { lines, log } = warnings();
    const keys = new IssuerKeys(fetch, log, { minFetchIntervalMs: 50 });
    expect(await keys.check(minted())).toBe('unchecked');
    expect(await keys.check(`${part({ alg: 'RS256' })}.${claims}.c2ln`)).toBe('unchecked');
    expect(calls.count).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('unverified claims alone');
    answer = issuerJwks();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await keys.check(`${part({ alg: 'RS256' })}.${claims}.c2ln`)).toBe('forged');
    expect(await keys.check(minted())).toBe('valid');
  });

  it('keeps the keys it has when a refresh fails', async () => {
    let answer: unknown = issuerJwks();
    const { fetch } = fetcher(() => answer);
    const { lines, log } = warnings();
    const keys = new IssuerKeys(fetch, log, { minFetchIntervalMs: 0, maxAgeMs: 0 });
    expect(await keys.check(minted())).toBe('valid');
    answer = new Error('unreachable');
    expect(await keys.check(minted())).toBe('valid');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await keys.check(`${part({ alg: 'RS256' })}.${claims}.c2ln`)).toBe('forged');
    expect(lines.some((line) => line.includes('kept'))).toBe(true);
  });

  it('gives up on a fetch that does not answer in time', async () => {
    const keys = new IssuerKeys(() => new Promise(() => {}), warnings().log, {
      fetchTimeoutMs: 20,
    });
    expect(await keys.check(minted())).toBe('unchecked');
  });

  it('reads only signing keys it can use from a key set', () => {
    const [key] = issuerJwks().keys;
    expect(keysOf({ keys: [key, { ...key, use: 'enc' }, { kty: 'RSA' }, 'junk'] })).toHaveLength(1);
    expect(keysOf('not a key set')).toEqual([]);
  });
});

describe('TokenVerdicts with signatures', () => {
  it('reviews no token whose signature is forged, and one that is unchecked', async () => {
    const asked: string[] = [];
    const review = async (token: string) => {
      asked.push(token);
      return {
        authenticated: true,
        username: 'system:serviceaccount:cert-manager:issuer',
        audiences: [AUDIENCE],
      };
    };
    let check: 'forged' | 'unchecked' | 'valid' = 'forged';
    const verdicts = new TokenVerdicts(review, AUDIENCE, { signatures: async () => check });
    const token = minted();
    expect(await verdicts.verdict(token)).toEqual({ invalid: true });
    expect(asked).toEqual([]);
    check = 'unchecked';
    expect(await verdicts.verdict(token)).toEqual({ account: 'cert-manager:issuer' });
    // Known from then on: not checked again.
    check = 'forged';
    expect(await verdicts.verdict(token)).toEqual({ account: 'cert-manager:issuer' });
    expect(asked).toHaveLength(1);
  });

  it('checks again a token refused while the keys were unknown, once its refusal expires', async () => {
    let reviewed = 0;
    const review = async () => {
      reviewed += 1;
      return { authenticated: false, audiences: [] };
    };
    let check: 'forged' | 'unchecked' = 'unchecked';
    const verdicts = new TokenVerdicts(review, AUDIENCE, {
      negativeTtlMs: 10,
      signatures: async () => check,
    });
    const token = minted();
    expect(await verdicts.verdict(token)).toEqual({ invalid: true });
    check = 'forged';
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await verdicts.verdict(token)).toEqual({ invalid: true });
    expect(reviewed).toBe(1);
  });
});
