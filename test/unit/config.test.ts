import { describe, expect, it } from 'vitest';
import { assertAuthConfigured, ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      redisUrl: 'redis://127.0.0.1:6379',
      queuePrefix: 'pod-bouncer',
      workerConcurrency: 10,
      pollIntervalMs: 1000,
      readinessTimeoutSeconds: 600,
      rootCertSyncTimeoutSeconds: 600,
      bounceMode: 'evict',
      defaultMaxUnavailable: { percent: 25 },
      kubeQps: 50,
      kubeBurst: 100,
      logLevel: 'info',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    ['PORT', 'eighty', /^PORT must be a whole number/],
    ['WORKER_CONCURRENCY', '0', /^WORKER_CONCURRENCY must be/],
    ['BOUNCE_MODE', 'nuke', /^BOUNCE_MODE must be one of delete, evict, rollout/],
    ['DEFAULT_MAX_UNAVAILABLE', '0', /^DEFAULT_MAX_UNAVAILABLE must be a whole number/],
    ['DEFAULT_MAX_UNAVAILABLE', '120%', /^DEFAULT_MAX_UNAVAILABLE must be/],
    ['REDIS_URL', 'http://x', /^REDIS_URL must be/],
    ['LOG_LEVEL', 'loud', /^LOG_LEVEL must be one of/],
    ['QUEUE_PREFIX', 'a:b', /^QUEUE_PREFIX may contain only/],
    ['WEBHOOK_AUTH', 'maybe', /^WEBHOOK_AUTH accepts only "none"/],
  ])('stops on a bad %s with one sentence naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('refuses to serve without an auth decision, and accepts an explicit none or tokens', () => {
    expect(() => assertAuthConfigured(loadConfig({}))).toThrow(/^WEBHOOK_AUTH must be set/);
    expect(() => assertAuthConfigured(loadConfig({ WEBHOOK_AUTH: 'none' }))).not.toThrow();
    expect(() => assertAuthConfigured(loadConfig({ WEBHOOK_TOKENS: 'a,b' }))).not.toThrow();
  });
});
