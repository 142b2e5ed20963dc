/**
 * Every environment variable pod-bouncer reads, declared once: its type and bounds (a TypeBox
 * schema of the value), its default, the roles that read it, what it means, and how the Helm chart
 * sets it. `loadConfig` parses the environment from this table; `--help`, docs/configuration.md and
 * the chart's `config` values (and their part of values.schema.json) follow from it.
 */

import { Type, type TInteger, type TSchema, type TString } from 'typebox';

import { MAX_SELECTORS_CEILING } from '../directive/bounds.js';
import { BOUNCE_MODES } from '../directive/types.js';

export type Role = 'serve' | 'work';

/**
 * How the chart sets a variable:
 * - `config`: from `config.<camelCase of the name>` in values.yaml, whose default is the program's;
 * - `values`: from another part of the values (a Secret reference, the Redis section, …);
 * - `fixed`: the chart decides it, for the reason given.
 */
export type ChartSource =
  | { readonly kind: 'config'; readonly required?: true }
  | { readonly kind: 'values'; readonly path: string }
  | { readonly kind: 'fixed'; readonly reason: string };

export interface Variable {
  readonly name: string;
  /** The value's type and bounds, as values.schema.json states them for the chart's `config`. */
  readonly schema: TSchema;
  /** The value used when the variable is unset or empty; absent: unset means "none" or "off". */
  readonly default?: string | number | boolean | readonly string[];
  /** What `--help` and the docs say instead of the default when it is not a plain value. */
  readonly defaultText?: string;
  readonly roles: readonly Role[];
  /** One line: what it does. */
  readonly doc: string;
  readonly chart: ChartSource;
  /** A credential: only ever read from a Secret by the chart, never logged. */
  readonly secret?: true;
  /** Heading it is listed under in the docs. */
  readonly group: Group;
}

export const GROUPS = [
  'Listener',
  'Redis',
  'Kubernetes API',
  'Authentication of the events endpoint',
  'What a credential may do',
  'Dashboard',
  'Workflow',
  'Gates and soak',
  'Notifications',
  'Logs',
] as const;
export type Group = (typeof GROUPS)[number];

const BOTH: readonly Role[] = ['serve', 'work'];
const SERVE: readonly Role[] = ['serve'];
const WORK: readonly Role[] = ['work'];

const config: ChartSource = { kind: 'config' };
/** A `config` value every install must give (values.schema.json requires it). */
const requiredConfig: ChartSource = { kind: 'config', required: true };
const values = (path: string): ChartSource => ({ kind: 'values', path });
const fixed = (reason: string): ChartSource => ({ kind: 'fixed', reason });

const integer = (minimum: number, maximum: number): TInteger => Type.Integer({ minimum, maximum });
const text = (): TString => Type.String({ minLength: 1 });

/** Namespace names, as ALLOWED_NAMESPACES lists them; `*` alone chooses every namespace. */
export const NAMESPACE_PATTERN = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';
export const EVERY_NAMESPACE = '*';

/** The name of a `name=token` entry of WEBHOOK_TOKENS: a DNS label. */
export const TOKEN_NAME_PATTERN = '^[a-z0-9-]{1,63}$';
/** A service account, `namespace:name`, as WEBHOOK_ALLOWED_SERVICEACCOUNTS lists it. */
export const SERVICE_ACCOUNT_PATTERN = '^[a-z0-9.-]+:[a-z0-9.-]+$';

/**
 * A CREDENTIAL_NAMESPACES value, `name=namespace|namespace,…`: a name is a token's, `hmac`,
 * `standard` or a service account's `ns:name`.
 */
export const CREDENTIAL_NAMESPACES_PATTERN = (() => {
  const name = `(${TOKEN_NAME_PATTERN.slice(1, -1)}|${SERVICE_ACCOUNT_PATTERN.slice(1, -1)})`;
  const namespace = NAMESPACE_PATTERN.slice(1, -1);
  const entry = `${name}=${namespace}(\\|${namespace})*`;
  return `^ *${entry}( *, *${entry})* *$`;
})();

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const VARIABLES: readonly Variable[] = [
  // Listener
  {
    name: 'PORT',
    group: 'Listener',
    schema: integer(0, 65535),
    default: 8080,
    roles: BOTH,
    doc: 'HTTP port: the events endpoint, probes and metrics (the worker serves probes and metrics)',
    chart: fixed('8080, the port of the Service, the probes and the monitors'),
  },
  {
    name: 'HOST',
    group: 'Listener',
    schema: text(),
    default: '0.0.0.0',
    roles: BOTH,
    doc: 'address the HTTP listener binds',
    chart: fixed('every address of the pod'),
  },
  // Redis
  {
    name: 'REDIS_URL',
    group: 'Redis',
    schema: Type.String({ pattern: '^rediss?://' }),
    default: 'redis://127.0.0.1:6379',
    roles: BOTH,
    doc: 'Redis connection; rediss:// for TLS',
    chart: values('redis.builtin, redis.external.url or redis.external.existingSecret'),
    secret: true,
  },
  {
    name: 'REDIS_SENTINELS',
    group: 'Redis',
    schema: text(),
    roles: BOTH,
    doc: 'host:port,… of Sentinels watching the primary, instead of REDIS_URL',
    chart: values('redisSentinel.sentinels'),
  },
  {
    name: 'REDIS_SENTINEL_NAME',
    group: 'Redis',
    schema: text(),
    roles: BOTH,
    doc: 'the master group name the Sentinels monitor (required with REDIS_SENTINELS)',
    chart: values('redisSentinel.masterName'),
  },
  {
    name: 'REDIS_SENTINEL_PASSWORD',
    group: 'Redis',
    schema: text(),
    roles: BOTH,
    doc: 'password of the Sentinels themselves',
    chart: values('redisSentinel.sentinelPasswordSecret'),
    secret: true,
  },
  {
    name: 'REDIS_CLUSTER_NODES',
    group: 'Redis',
    schema: text(),
    roles: BOTH,
    doc: 'host:port,… seed nodes of a Redis Cluster, instead of REDIS_URL (QUEUE_PREFIX needs a {hash tag})',
    chart: values('redisCluster.nodes'),
  },
  {
    name: 'REDIS_USERNAME',
    group: 'Redis',
    schema: text(),
    roles: BOTH,
    doc: 'ACL user of the data nodes (Sentinel and Cluster)',
    chart: values('redisSentinel.username or redisCluster.username'),
  },
  {
    name: 'REDIS_PASSWORD',
    group: 'Redis',
    schema: text(),
    roles: BOTH,
    doc: 'password of the data nodes',
    chart: values(
      'redis.builtin.auth, redisSentinel.passwordSecret or redisCluster.passwordSecret',
    ),
    secret: true,
  },
  {
    name: 'REDIS_TLS',
    group: 'Redis',
    schema: Type.Boolean(),
    default: false,
    roles: BOTH,
    doc: 'TLS to the data nodes (Sentinel and Cluster; REDIS_URL says it with rediss://)',
    chart: values('redisSentinel.tls or redisCluster.tls'),
  },
  {
    name: 'QUEUE_PREFIX',
    group: 'Redis',
    schema: Type.String({ pattern: '^[A-Za-z0-9_{}.-]+$' }),
    default: 'pod-bouncer',
    roles: BOTH,
    doc: 'BullMQ key prefix; lets several installations share one Redis; set but empty is an error',
    chart: config,
  },
  {
    name: 'RETENTION_DAYS',
    group: 'Redis',
    schema: integer(1, 3650),
    default: 30,
    roles: BOTH,
    doc: 'how long finished jobs and run markers are kept in Redis (CloudEvent ids: 24 hours)',
    chart: config,
  },
  // Kubernetes API
  {
    name: 'KUBECONFIG',
    group: 'Kubernetes API',
    schema: text(),
    defaultText: 'in-cluster, else ~/.kube/config',
    roles: BOTH,
    doc: 'kubeconfig file of the Kubernetes API to use',
    chart: fixed('in-cluster: the pods use their service accounts'),
  },
  {
    name: 'KUBE_CONTEXT',
    group: 'Kubernetes API',
    schema: text(),
    defaultText: "the kubeconfig's current context",
    roles: BOTH,
    doc: 'context of the kubeconfig to use',
    chart: fixed('in-cluster: no kubeconfig'),
  },
  {
    name: 'KUBE_QPS',
    group: 'Kubernetes API',
    schema: integer(1, 100_000),
    default: 50,
    roles: BOTH,
    doc: "client-side rate limit towards the API server (every request counts, watches' LISTs included)",
    chart: config,
  },
  {
    name: 'KUBE_BURST',
    group: 'Kubernetes API',
    schema: integer(1, 100_000),
    default: 100,
    roles: BOTH,
    doc: 'requests allowed at once above KUBE_QPS',
    chart: config,
  },
  // Authentication of the events endpoint
  {
    name: 'WEBHOOK_AUTH',
    group: 'Authentication of the events endpoint',
    schema: Type.Enum(['none']),
    roles: SERVE,
    doc: '"none" accepts unauthenticated events; it must be chosen explicitly',
    chart: values('auth.none'),
  },
  {
    name: 'WEBHOOK_TOKENS',
    group: 'Authentication of the events endpoint',
    schema: text(),
    roles: SERVE,
    doc: 'comma-separated static bearer tokens, each token or name=token (a DNS label, then at least 16 characters; else named token<i>)',
    chart: values('auth.tokensSecret'),
    secret: true,
  },
  {
    name: 'WEBHOOK_HMAC_SECRET',
    group: 'Authentication of the events endpoint',
    schema: text(),
    roles: SERVE,
    doc: 'secret of X-Signature-256 HMAC signatures, which admit POST /v1/events only',
    chart: values('auth.hmacSecret'),
    secret: true,
  },
  {
    name: 'WEBHOOK_STANDARD_SECRET',
    group: 'Authentication of the events endpoint',
    schema: Type.String({ pattern: '^whsec_' }),
    roles: SERVE,
    doc: 'Standard Webhooks signing secret (whsec_ and a base64 key of at least 16 bytes), whose signatures admit POST /v1/events only',
    chart: values('auth.standardSecret'),
    secret: true,
  },
  {
    name: 'WEBHOOK_TOKENREVIEW_AUDIENCE',
    group: 'Authentication of the events endpoint',
    schema: text(),
    roles: SERVE,
    doc: 'audience of the service-account tokens checked with TokenReview',
    chart: values('auth.tokenReview.audience'),
  },
  {
    name: 'WEBHOOK_ALLOWED_SERVICEACCOUNTS',
    group: 'Authentication of the events endpoint',
    schema: text(),
    roles: SERVE,
    doc: 'namespace:name,… service accounts allowed with TokenReview',
    chart: values('auth.tokenReview.allowedServiceAccounts'),
  },
  {
    name: 'BODY_LIMIT_BYTES',
    group: 'Authentication of the events endpoint',
    schema: integer(1024, 64 * 1_048_576),
    default: 1_048_576,
    roles: SERVE,
    doc: 'largest event body (413 above)',
    chart: config,
  },
  {
    name: 'BODY_TIMEOUT_SECONDS',
    group: 'Authentication of the events endpoint',
    schema: integer(1, 600),
    default: 10,
    roles: SERVE,
    doc: 'time allowed to receive an event body once its headers arrived (408 after it)',
    chart: config,
  },
  // What a credential may do
  {
    name: 'ALLOWED_NAMESPACES',
    group: 'What a credential may do',
    schema: Type.Union([
      Type.Array(Type.Literal(EVERY_NAMESPACE), { minItems: 1, maxItems: 1 }),
      Type.Array(Type.String({ pattern: NAMESPACE_PATTERN }), { minItems: 1, uniqueItems: true }),
    ]),
    defaultText: 'every namespace (warned at start-up)',
    roles: BOTH,
    doc: 'comma-separated namespaces directives, selectors and inline directives may touch; * for every namespace, chosen explicitly',
    chart: requiredConfig,
  },
  {
    name: 'CREDENTIAL_NAMESPACES',
    group: 'What a credential may do',
    schema: Type.String({ pattern: CREDENTIAL_NAMESPACES_PATTERN }),
    defaultText: 'ALLOWED_NAMESPACES for every credential',
    roles: SERVE,
    doc: 'per-credential narrowing of ALLOWED_NAMESPACES, issuer=istio-system|bookinfo,ci=apps (token names, hmac, standard, namespace:name of a service account); a credential not listed gets ALLOWED_NAMESPACES',
    chart: config,
  },
  {
    name: 'RATE_LIMIT_PER_MINUTE',
    group: 'What a credential may do',
    schema: integer(1, 1_000_000),
    default: 600,
    roles: SERVE,
    doc: 'requests each credential may make in any 60 s, counted across api replicas in Redis (429 above)',
    chart: config,
  },
  {
    name: 'INLINE_DIRECTIVES',
    group: 'What a credential may do',
    schema: Type.Boolean(),
    default: true,
    roles: SERVE,
    doc: 'false refuses inline directives (403)',
    chart: config,
  },
  {
    name: 'MAX_SELECTORS',
    group: 'What a credential may do',
    schema: integer(1, MAX_SELECTORS_CEILING),
    default: 1000,
    roles: SERVE,
    doc: "most selectors a directive may have (422 above); Gloo's issuer writes one per workload of the mesh",
    chart: config,
  },
  {
    name: 'DEFAULT_MAX_CONCURRENT_SELECTORS',
    group: 'What a credential may do',
    schema: integer(1, MAX_SELECTORS_CEILING),
    default: 1,
    roles: BOTH,
    doc: 'maxConcurrentSelectors of a directive that sets none: selectors of a run with pods down at once',
    chart: config,
  },
  {
    name: 'MAX_RUNS_PER_HOUR',
    group: 'What a credential may do',
    schema: integer(1, 1_000_000),
    default: 6,
    roles: BOTH,
    doc: 'runs a directive may start in an hour (429 too_many_runs above): a looping sender costs bounded restarts',
    chart: config,
  },
  // Dashboard
  {
    name: 'DASHBOARD_USER',
    group: 'Dashboard',
    schema: text(),
    roles: SERVE,
    doc: 'basic-auth user of /admin/queues (with DASHBOARD_PASSWORD; unset: no dashboard)',
    chart: values('dashboard.existingSecret'),
    secret: true,
  },
  {
    name: 'DASHBOARD_PASSWORD',
    group: 'Dashboard',
    schema: text(),
    roles: SERVE,
    doc: 'basic-auth password of /admin/queues',
    chart: values('dashboard.existingSecret'),
    secret: true,
  },
  // Workflow
  {
    name: 'BOUNCE_MODE',
    group: 'Workflow',
    schema: Type.Enum([...BOUNCE_MODES]),
    default: 'evict',
    roles: WORK,
    doc: 'bounceMode of a selector that sets none',
    chart: config,
  },
  {
    name: 'DEFAULT_MAX_UNAVAILABLE',
    group: 'Workflow',
    schema: Type.Union([
      Type.Integer({ minimum: 1 }),
      Type.String({ pattern: '^([1-9]|[1-9][0-9]|100)%$' }),
    ]),
    default: '25%',
    roles: WORK,
    doc: 'maxUnavailable of a selector that sets none; 100% bounces its pods all at once',
    chart: config,
  },
  {
    name: 'WATCH_DIRECTIVES',
    group: 'Workflow',
    schema: Type.Boolean(),
    default: false,
    roles: WORK,
    doc: 'controller mode: workers watch the directives of ALLOWED_NAMESPACES and start their runs without an event',
    chart: config,
  },
  {
    name: 'WORKER_CONCURRENCY',
    group: 'Workflow',
    schema: integer(1, 1000),
    default: 10,
    roles: WORK,
    doc: 'jobs processed at once per worker process',
    chart: config,
  },
  {
    name: 'POLL_INTERVAL_MS',
    group: 'Workflow',
    schema: integer(10, 3_600_000),
    default: 1000,
    roles: WORK,
    doc: 're-check interval of a waiting job when no watch event wakes it',
    chart: config,
  },
  {
    name: 'READINESS_TIMEOUT_SECONDS',
    group: 'Workflow',
    schema: integer(1, 86_400),
    default: 600,
    roles: WORK,
    doc: 'how long a selector waits for Ready replacements',
    chart: config,
  },
  {
    name: 'ROOT_CERT_SYNC_TIMEOUT_SECONDS',
    group: 'Workflow',
    schema: integer(1, 86_400),
    default: 600,
    roles: WORK,
    doc: 'how long a selector waits for the root certificate to reach its namespace',
    chart: config,
  },
  {
    name: 'JOB_LOCK_MS',
    group: 'Workflow',
    schema: integer(1000, 600_000),
    default: 30_000,
    roles: WORK,
    doc: "how long a worker's job lock lives: a killed worker's job is taken over after about this long",
    chart: config,
  },
  // Gates and soak
  {
    name: 'DEFAULT_SOAK_SECONDS',
    group: 'Gates and soak',
    schema: integer(0, 86_400),
    default: 0,
    roles: WORK,
    doc: 'soakSeconds of a selector that sets none: how long to wait after each batch is Ready',
    chart: config,
  },
  {
    name: 'PROMETHEUS_URL',
    group: 'Gates and soak',
    schema: Type.String({ pattern: '^https?://' }),
    roles: BOTH,
    doc: 'Prometheus HTTP API for alerts and query gates (required by them)',
    chart: config,
  },
  {
    name: 'PROMETHEUS_TOKEN_FILE',
    group: 'Gates and soak',
    schema: text(),
    roles: BOTH,
    doc: 'a file holding the bearer token sent to Prometheus, read again at each request (a rotated token is used at once)',
    chart: values('prometheus.token.serviceAccountToken or prometheus.token.secret'),
  },
  {
    name: 'GATE_ALERTS',
    group: 'Gates and soak',
    schema: text(),
    roles: BOTH,
    doc: 'an alerts gate (an RE2 regex of alert names, as PromQL =~) applied to every directive',
    chart: config,
  },
  {
    name: 'GATE_WINDOWS',
    group: 'Gates and soak',
    schema: text(),
    roles: BOTH,
    doc: 'windows applied to every directive: Mon-Fri 02:00-05:00 Europe/Berlin; Sat,Sun 00:00-24:00',
    chart: config,
  },
  {
    name: 'GATE_INTERVAL_SECONDS',
    group: 'Gates and soak',
    schema: integer(1, 3600),
    default: 30,
    roles: BOTH,
    doc: 'how often a closed gate is evaluated again (and how old a shared verdict may be)',
    chart: config,
  },
  {
    name: 'GATE_TIMEOUT_SECONDS',
    group: 'Gates and soak',
    schema: integer(1, 604_800),
    default: 3600,
    roles: WORK,
    doc: 'how long an alerts or query gate may stay closed before the run fails (windows never time out)',
    chart: config,
  },
  // Notifications
  {
    name: 'NOTIFY_URL',
    group: 'Notifications',
    schema: Type.String({ pattern: '^https?://' }),
    roles: BOTH,
    doc: 'where status transitions are sent (http:// or https://)',
    chart: values('notifications.urlSecret'),
    secret: true,
  },
  {
    name: 'K_SINK',
    group: 'Notifications',
    schema: Type.String({ pattern: '^https?://' }),
    roles: BOTH,
    doc: "where status transitions are sent when NOTIFY_URL is unset (Knative's SinkBinding sets it)",
    chart: fixed('injected by a Knative SinkBinding, not by the chart'),
  },
  {
    name: 'NOTIFY_FORMAT',
    group: 'Notifications',
    schema: Type.Enum(['cloudevents', 'slack']),
    default: 'cloudevents',
    roles: BOTH,
    doc: 'cloudevents (structured JSON) or slack (a text message)',
    chart: values('notifications.format'),
  },
  // Logs
  {
    name: 'LOG_LEVEL',
    group: 'Logs',
    schema: Type.Enum([...LOG_LEVELS]),
    default: 'info',
    roles: BOTH,
    doc: 'pino level; probes and static files are not logged at info',
    chart: config,
  },
];

const BY_NAME = new Map(VARIABLES.map((variable) => [variable.name, variable]));

/** The declaration of one variable; a name not in the table is a programming error. */
export function variable(name: string): Variable {
  const found = BY_NAME.get(name);
  if (found === undefined) throw new Error(`${name} is not a declared variable`);
  return found;
}

/** `config.<key>` of the chart's values for a variable: WORKER_CONCURRENCY → workerConcurrency. */
export function chartKey(name: string): string {
  return name.toLowerCase().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** The variables a role reads, in the table's order; `all` reads both roles'. */
export function variablesOf(role: Role | 'all'): Variable[] {
  return VARIABLES.filter((v) => role === 'all' || v.roles.includes(role));
}
