import { describe, expect, it } from 'vitest';
import { assertAuthConfigured, ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig: the HTTP layer settings', () => {
  it('defaults the body limit to 1 MiB and the body timeout to 10 s', () => {
    expect(loadConfig({})).toMatchObject({ bodyLimitBytes: 1_048_576, bodyTimeoutSeconds: 10 });
    expect(loadConfig({ BODY_TIMEOUT_SECONDS: '1' }).bodyTimeoutSeconds).toBe(1);
  });

  it.each([
    ['QUEUE_PREFIX', '', /^QUEUE_PREFIX is set but empty/],
    ['QUEUE_PREFIX', '   ', /^QUEUE_PREFIX is set but empty/],
    ['BODY_TIMEOUT_SECONDS', '0', /^BODY_TIMEOUT_SECONDS must be/],
    ['BODY_LIMIT_BYTES', 'lots', /^BODY_LIMIT_BYTES must be/],
    ['WEBHOOK_STANDARD_SECRET', 'plain-secret', /^WEBHOOK_STANDARD_SECRET must be whsec_/],
    ['WEBHOOK_STANDARD_SECRET', 'whsec_!!!', /^WEBHOOK_STANDARD_SECRET must be whsec_/],
    ['WEBHOOK_STANDARD_SECRET', 'whsec_c2hvcnQ=', /^WEBHOOK_STANDARD_SECRET must be whsec_/],
  ])('stops on %s=%j with one sentence naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('decodes a Standard Webhooks secret, which is an auth mode of its own', () => {
    const key = Buffer.alloc(24, 7);
    const config = loadConfig({ WEBHOOK_STANDARD_SECRET: `whsec_${key.toString('base64')}` });
    expect(config.auth.standardSecret?.equals(key)).toBe(true);
    expect(() => assertAuthConfigured(config)).not.toThrow();
  });
});

describe('loadConfig: the names credentials go by', () => {
  it('names a token by the part before its first "=" when that is a DNS label and 16 or more characters follow', () => {
    const entries = [
      'issuer=0123456789abcdef0123', // named
      'plain-token-0123456789', // no "=": the whole entry, by its place
      'ci=too-short', // fewer than 16 characters after "=": the whole entry is the token
      'Upper=0123456789abcdef0123', // not a DNS label
      'a2V5IGJ5dGVzIGhlcmU=', // base64 padding: not a name
      'ci=a=b=0123456789abcdef', // the first "=" decides; the rest may hold more
    ];
    const { tokens } = loadConfig({ WEBHOOK_TOKENS: entries.join(',') }).auth;
    expect(tokens).toEqual([
      { name: 'issuer', token: '0123456789abcdef0123' },
      { name: 'token1', token: 'plain-token-0123456789' },
      { name: 'token2', token: 'ci=too-short' },
      { name: 'token3', token: 'Upper=0123456789abcdef0123' },
      { name: 'token4', token: 'a2V5IGJ5dGVzIGhlcmU=' },
      { name: 'ci', token: 'a=b=0123456789abcdef' },
    ]);
  });

  it.each([
    ['issuer=0123456789abcdef0123,issuer=fedcba98765432100000', /"issuer"/],
    ['token1=0123456789abcdef0123,plain-token', /"token1"/],
    ['hmac=0123456789abcdef0123', /"hmac"/],
    ['standard=0123456789abcdef0123', /"standard"/],
  ])(
    'stops on WEBHOOK_TOKENS that name two credentials alike (%s), never saying a token',
    (value, name) => {
      expect(() => loadConfig({ WEBHOOK_TOKENS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ WEBHOOK_TOKENS: value })).toThrow(/^WEBHOOK_TOKENS /);
      expect(() => loadConfig({ WEBHOOK_TOKENS: value })).toThrow(name);
      expect(() => loadConfig({ WEBHOOK_TOKENS: value })).not.toThrow(/0123456789abcdef/);
    },
  );
});

describe('loadConfig: service accounts name field managers', () => {
  it('stops on a service account too long to name the field manager of its inline directives', () => {
    const account = `certs:${'a'.repeat(111)}`; // pod-bouncer-certs.aaa…: 129 characters
    expect(() => loadConfig({ WEBHOOK_ALLOWED_SERVICEACCOUNTS: account })).toThrow(
      /^WEBHOOK_ALLOWED_SERVICEACCOUNTS entry "certs:a+" is too long to name a field manager/,
    );
    expect(() =>
      loadConfig({ WEBHOOK_ALLOWED_SERVICEACCOUNTS: `certs:${'a'.repeat(110)}` }),
    ).not.toThrow();
  });
});

describe('loadConfig: CREDENTIAL_NAMESPACES', () => {
  it('reads, per credential name, the namespaces it may touch', () => {
    const config = loadConfig({
      ALLOWED_NAMESPACES: 'istio-system,bookinfo,apps',
      CREDENTIAL_NAMESPACES: 'issuer=istio-system|bookinfo, ci=apps,certs:issuer=apps,hmac=apps',
    });
    expect(config.credentialNamespaces).toEqual(
      new Map([
        ['issuer', ['istio-system', 'bookinfo']],
        ['ci', ['apps']],
        ['certs:issuer', ['apps']],
        ['hmac', ['apps']],
      ]),
    );
    expect(loadConfig({}).credentialNamespaces).toEqual(new Map());
  });

  it.each([
    ['issuer', /^CREDENTIAL_NAMESPACES entries must look like name=namespace\|namespace/],
    ['issuer=', /^CREDENTIAL_NAMESPACES entries must look like/],
    ['=apps', /^CREDENTIAL_NAMESPACES entries must look like/],
    ['issuer=apps|', /^CREDENTIAL_NAMESPACES entries must look like/],
    ['issuer=*', /^CREDENTIAL_NAMESPACES entries must look like/],
    ['Issuer=apps', /^CREDENTIAL_NAMESPACES entries must look like/],
    ['issuer=Apps', /^CREDENTIAL_NAMESPACES entries must look like/],
    ['issuer=apps,issuer=bookinfo', /^CREDENTIAL_NAMESPACES lists "issuer" twice/],
    [
      'issuer=kube-system',
      /^CREDENTIAL_NAMESPACES gives "issuer" the namespace "kube-system", which ALLOWED_NAMESPACES does not allow\.$/,
    ],
  ])('stops on CREDENTIAL_NAMESPACES=%j with one sentence naming it', (value, message) => {
    const env = { ALLOWED_NAMESPACES: 'apps,bookinfo', CREDENTIAL_NAMESPACES: value };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('refuses to serve when it names a credential that is not configured (a misspelt name)', () => {
    const env = {
      WEBHOOK_TOKENS: 'issuer=0123456789abcdef0123,plain-token',
      WEBHOOK_HMAC_SECRET: 'hmac-secret',
      WEBHOOK_ALLOWED_SERVICEACCOUNTS: 'certs:issuer',
      WEBHOOK_TOKENREVIEW_AUDIENCE: 'pod-bouncer',
    };
    const known = 'issuer=apps,token1=apps,hmac=apps,certs:issuer=apps';
    expect(() =>
      assertAuthConfigured(loadConfig({ ...env, CREDENTIAL_NAMESPACES: known })),
    ).not.toThrow();
    for (const unknown of ['isuer', 'standard', 'token0', 'certs:other']) {
      const config = loadConfig({ ...env, CREDENTIAL_NAMESPACES: `${unknown}=apps` });
      expect(() => assertAuthConfigured(config)).toThrow(
        new RegExp(
          `^CREDENTIAL_NAMESPACES names "${unknown}", which is not a configured credential`,
        ),
      );
    }
  });
});
