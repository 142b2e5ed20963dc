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
    ['DEFAULT_MAX_CONCURRENT_SELECTORS', '0', /^DEFAULT_MAX_CONCURRENT_SELECTORS must be/],
    [
      'DEFAULT_MAX_CONCURRENT_SELECTORS',
      '1001',
      /^DEFAULT_MAX_CONCURRENT_SELECTORS is 1001, more than MAX_SELECTORS \(1000\)/,
    ],
  ])('stops on a bad %s with one sentence naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('never shows the credentials, path or query of a URL-valued variable it refuses', () => {
    const cases: Array<[string, string, string]> = [
      [
        'NOTIFY_URL',
        'ftp://u:notifysecret@x/y?token=querysecret',
        'NOTIFY_URL must be an http:// or https:// URL, not "ftp://x/…".',
      ],
      [
        'PROMETHEUS_URL',
        'ftp://u:promsecret@prometheus:9090/api',
        'PROMETHEUS_URL must be an http:// or https:// URL, not "ftp://prometheus:9090/…".',
      ],
      ['K_SINK', 'sink:sinksecret@x', 'K_SINK must be an http:// or https:// URL, not "sink:…".'],
      [
        'REDIS_URL',
        'http://:redissecret@127.0.0.1:6379',
        'REDIS_URL must be a redis:// or rediss:// URL, not "http://127.0.0.1:6379".',
      ],
      [
        'NOTIFY_URL',
        'https://u:notifysecret@',
        'NOTIFY_URL must be an http:// or https:// URL; its value is not one.',
      ],
    ];
    for (const [name, value, sentence] of cases) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(new ConfigError(sentence));
    }
  });

  it('stops on a REDIS_URL whose database is not a whole number, without its password', () => {
    const sentence =
      'REDIS_URL must name its database by a whole number from 0 (redis://host:6379/0) or not at all.';
    for (const path of ['/abc', '/-1', '/1x', '/1/2', '/%31', '?db=abc', '/ 1']) {
      const env = { REDIS_URL: `redis://:redissecret@127.0.0.1:6379${path}` };
      expect(() => loadConfig(env), path).toThrow(new ConfigError(sentence));
    }
    for (const path of ['', '/', '/0', '/15', '?db=3']) {
      const url = `redis://:redissecret@127.0.0.1:6379${path}`;
      expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    }
  });

  it('reads what a credential may do and how long Redis keeps runs', () => {
    expect(loadConfig({})).toMatchObject({
      allowedNamespaces: undefined,
      inlineDirectives: true,
      maxSelectors: 1000,
      defaultMaxConcurrentSelectors: 1,
      retentionDays: 30,
    });
    const config = loadConfig({
      ALLOWED_NAMESPACES: ' istio-system, bookinfo ,istio-system',
      INLINE_DIRECTIVES: 'false',
      MAX_SELECTORS: '8',
      RETENTION_DAYS: '7',
    });
    expect(config).toMatchObject({
      allowedNamespaces: ['istio-system', 'bookinfo'],
      inlineDirectives: false,
      maxSelectors: 8,
      retentionDays: 7,
    });
    // Every namespace, chosen explicitly: no list, and no warning at start-up.
    expect(loadConfig({ ALLOWED_NAMESPACES: ' * ' })).toMatchObject({
      allowedNamespaces: undefined,
      everyNamespaceChosen: true,
    });
    expect(loadConfig({})).toMatchObject({ everyNamespaceChosen: false });
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ ALLOWED_NAMESPACES: '*,bookinfo' }, /^ALLOWED_NAMESPACES must be either \* .* not both/],
      [{ ALLOWED_NAMESPACES: 'Kube_System' }, /^ALLOWED_NAMESPACES must be .*"Kube_System"/],
      [{ ALLOWED_NAMESPACES: ',' }, /^ALLOWED_NAMESPACES must name at least one namespace/],
      [{ INLINE_DIRECTIVES: 'no' }, /^INLINE_DIRECTIVES must be one of true, false/],
      [{ MAX_SELECTORS: '0' }, /^MAX_SELECTORS must be a whole number from 1/],
      [{ RETENTION_DAYS: '1.5' }, /^RETENTION_DAYS must be a whole number/],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    }
  });

  it('reads the installation-wide gates, and stops on ones that cannot work', () => {
    expect(loadConfig({}).gates).toMatchObject({
      prometheusUrl: undefined,
      installation: [],
      intervalSeconds: 30,
      timeoutSeconds: 3600,
    });
    const config = loadConfig({
      PROMETHEUS_URL: 'http://prometheus:9090',
      GATE_ALERTS: 'IstioHigh5xxRate|KubePodCrashLooping',
      GATE_WINDOWS: 'Mon-Fri 02:00-05:00 Europe/Berlin',
      DEFAULT_SOAK_SECONDS: '60',
    });
    expect(config.defaultSoakSeconds).toBe(60);
    expect(config.gates.installation).toEqual([
      { alerts: 'IstioHigh5xxRate|KubePodCrashLooping' },
      {
        windows: [
          {
            days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
            start: '02:00',
            end: '05:00',
            timeZone: 'Europe/Berlin',
          },
        ],
      },
    ]);
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ GATE_ALERTS: 'X' }, /^GATE_ALERTS needs PROMETHEUS_URL/],
      [
        { PROMETHEUS_URL: 'http://p', GATE_ALERTS: '(' },
        /^GATE_ALERTS must be an RE2 regular expression/,
      ],
      [{ GATE_WINDOWS: 'weekdays 02:00-05:00' }, /^GATE_WINDOWS is not valid: "weekdays"/],
      [{ PROMETHEUS_URL: 'prometheus:9090' }, /^PROMETHEUS_URL must be an http/],
      [{ GATE_INTERVAL_SECONDS: '0' }, /^GATE_INTERVAL_SECONDS must be a whole number from 1/],
    ];
    for (const [env, message] of cases) expect(() => loadConfig(env)).toThrow(message);
  });

  it('refuses to serve without an auth decision, and accepts an explicit none or tokens', () => {
    expect(() => assertAuthConfigured(loadConfig({}))).toThrow(/^WEBHOOK_AUTH must be set/);
    expect(() => assertAuthConfigured(loadConfig({ WEBHOOK_AUTH: 'none' }))).not.toThrow();
    expect(() => assertAuthConfigured(loadConfig({ WEBHOOK_TOKENS: 'a,b' }))).not.toThrow();
  });
});
