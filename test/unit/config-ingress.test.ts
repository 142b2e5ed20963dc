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
