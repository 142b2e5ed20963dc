/**
 * Configuration, read once from the environment at start-up and frozen.
 * Nothing else in the code base reads `process.env`: a bad value stops the process here with one
 * sentence that names the variable.
 */

import {
  parseRedisTopology,
  RedisSettingError,
  type RedisTopology,
} from './queue/redis-topology.js';

import { BOUNCE_MODES, type BounceMode } from './directive/types.js';
import { parseMaxUnavailable, type MaxUnavailable } from './directive/max-unavailable.js';

export type { BounceMode } from './directive/types.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly redisUrl: string;
  /** Where the queue lives: REDIS_URL, or REDIS_SENTINELS, or REDIS_CLUSTER_NODES (see redis-topology). */
  readonly redis: RedisTopology;
  readonly queuePrefix: string;
  readonly kubeconfig: string | undefined;
  readonly kubeContext: string | undefined;
  readonly auth: AuthConfig;
  readonly dashboard: { readonly user: string; readonly password: string } | undefined;
  readonly workerConcurrency: number;
  readonly pollIntervalMs: number;
  readonly readinessTimeoutSeconds: number;
  readonly rootCertSyncTimeoutSeconds: number;
  /** A selector's `bounceMode` when it sets none (BOUNCE_MODE). */
  readonly bounceMode: BounceMode;
  /** A selector's `maxUnavailable` when it sets none (DEFAULT_MAX_UNAVAILABLE). */
  readonly defaultMaxUnavailable: MaxUnavailable;
  readonly kubeQps: number;
  readonly kubeBurst: number;
  readonly logLevel: string;
  readonly bodyLimitBytes: number;
  /** Time allowed to receive an event body once its headers arrived (408 after it). */
  readonly bodyTimeoutSeconds: number;
  /** How long a worker's job lock lives; a killed worker's job is taken over after about this long. */
  readonly jobLockMs: number;
  /** Namespaces selectors and inline directives may touch; undefined: every namespace. */
  readonly allowedNamespaces: readonly string[] | undefined;
  /** False refuses the inline form of the native body (403). */
  readonly inlineDirectives: boolean;
  /** Most selectors a directive may have (422 above). */
  readonly maxSelectors: number;
  /** How long finished jobs, run markers and CloudEvent ids are kept in Redis. */
  readonly retentionDays: number;
  /** Where status transitions are sent (NOTIFY_URL, else K_SINK), and how; undefined: not sent. */
  readonly notify: NotifyConfig | undefined;
}

export interface NotifyConfig {
  readonly url: string;
  readonly format: 'cloudevents' | 'slack';
}

export interface AuthConfig {
  /** `WEBHOOK_AUTH=none` given explicitly: the events endpoint accepts anyone. */
  readonly none: boolean;
  readonly tokens: readonly string[];
  readonly hmacSecret: string | undefined;
  /** Standard Webhooks signing key, the bytes after `whsec_` decoded from base64. */
  readonly standardSecret: Buffer | undefined;
  readonly tokenReviewAudience: string | undefined;
  readonly allowedServiceAccounts: readonly string[];
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, range: [number, number]): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  const [min, max] = range;
  if (!/^-?\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${raw}".`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!allowed.includes(raw as T)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, not "${raw}".`);
  }
  return raw as T;
}

function maxUnavailable(env: Env): MaxUnavailable {
  const raw = read(env, 'DEFAULT_MAX_UNAVAILABLE') ?? '25%';
  const parsed = parseMaxUnavailable(/^\d+$/.test(raw) ? Number(raw) : raw);
  if (parsed === undefined) {
    throw new ConfigError(
      `DEFAULT_MAX_UNAVAILABLE must be a whole number of at least 1 or a percentage from 1% to 100%, not "${raw}".`,
    );
  }
  return parsed;
}

function list(env: Env, name: string): string[] {
  return (read(env, name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function redisUrl(env: Env): string {
  const raw = read(env, 'REDIS_URL') ?? 'redis://127.0.0.1:6379';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL.');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL.');
  }
  return raw;
}

function queuePrefix(env: Env): string {
  // Set but empty (`QUEUE_PREFIX=`) is a mistake, not a wish for the default: two installations
  // that both meant a prefix of their own would share one queue.
  if (env.QUEUE_PREFIX !== undefined && env.QUEUE_PREFIX.trim() === '') {
    throw new ConfigError('QUEUE_PREFIX is set but empty; remove it or give it a value.');
  }
  const prefix = read(env, 'QUEUE_PREFIX') ?? 'pod-bouncer';
  // BullMQ joins keys with ':'; a colon in the prefix would make keys ambiguous.
  if (!/^[A-Za-z0-9_{}.-]+$/.test(prefix)) {
    throw new ConfigError(
      `QUEUE_PREFIX may contain only letters, digits and "_ - . { }", not "${prefix}".`,
    );
  }
  return prefix;
}

/** Sentinel and Cluster settings are parsed beside the connections they shape; errors stay ConfigErrors. */
function redisTopology(env: Env, prefix: string): RedisTopology {
  try {
    return parseRedisTopology(env, prefix);
  } catch (error) {
    throw error instanceof RedisSettingError ? new ConfigError(error.message) : error;
  }
}

function standardSecret(env: Env): Buffer | undefined {
  const raw = read(env, 'WEBHOOK_STANDARD_SECRET');
  if (raw === undefined) return undefined;
  const encoded = raw.startsWith('whsec_') ? raw.slice('whsec_'.length) : '';
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length < 16) {
    throw new ConfigError(
      'WEBHOOK_STANDARD_SECRET must be whsec_ followed by a base64 key of at least 16 bytes.',
    );
  }
  return key;
}

function authConfig(env: Env): AuthConfig {
  const mode = read(env, 'WEBHOOK_AUTH');
  if (mode !== undefined && mode !== 'none') {
    throw new ConfigError(`WEBHOOK_AUTH accepts only "none", not "${mode}".`);
  }
  const auth: AuthConfig = {
    none: mode === 'none',
    tokens: list(env, 'WEBHOOK_TOKENS'),
    hmacSecret: read(env, 'WEBHOOK_HMAC_SECRET'),
    standardSecret: standardSecret(env),
    tokenReviewAudience: read(env, 'WEBHOOK_TOKENREVIEW_AUDIENCE'),
    allowedServiceAccounts: list(env, 'WEBHOOK_ALLOWED_SERVICEACCOUNTS'),
  };
  for (const account of auth.allowedServiceAccounts) {
    if (!/^[a-z0-9.-]+:[a-z0-9.-]+$/.test(account)) {
      throw new ConfigError(
        `WEBHOOK_ALLOWED_SERVICEACCOUNTS entries must look like namespace:name, not "${account}".`,
      );
    }
  }
  if (auth.tokenReviewAudience !== undefined && auth.allowedServiceAccounts.length === 0) {
    throw new ConfigError(
      'WEBHOOK_ALLOWED_SERVICEACCOUNTS must list the service accounts allowed when WEBHOOK_TOKENREVIEW_AUDIENCE is set.',
    );
  }
  return auth;
}

/** True when at least one way to authenticate callers is configured, or `none` was chosen. */
export function hasAuthMode(auth: AuthConfig): boolean {
  return (
    auth.none ||
    auth.tokens.length > 0 ||
    auth.hmacSecret !== undefined ||
    auth.standardSecret !== undefined ||
    auth.tokenReviewAudience !== undefined
  );
}

function dashboard(env: Env): Config['dashboard'] {
  const user = read(env, 'DASHBOARD_USER');
  const password = read(env, 'DASHBOARD_PASSWORD');
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError('DASHBOARD_USER and DASHBOARD_PASSWORD must be set together.');
  }
  return user !== undefined && password !== undefined ? { user, password } : undefined;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http:// or https:// URL, not "${raw}".`);
  }
  return raw;
}

function notify(env: Env): NotifyConfig | undefined {
  const format = oneOf(env, 'NOTIFY_FORMAT', ['cloudevents', 'slack'] as const, 'cloudevents');
  const url = httpUrl(env, 'NOTIFY_URL') ?? httpUrl(env, 'K_SINK');
  return url === undefined ? undefined : { url, format };
}

function allowedNamespaces(env: Env): readonly string[] | undefined {
  if (read(env, 'ALLOWED_NAMESPACES') === undefined) return undefined;
  const names = list(env, 'ALLOWED_NAMESPACES');
  if (names.length === 0) {
    throw new ConfigError('ALLOWED_NAMESPACES must name at least one namespace when it is set.');
  }
  for (const name of names) {
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name)) {
      throw new ConfigError(
        `ALLOWED_NAMESPACES must be a comma-separated list of namespace names, not "${name}".`,
      );
    }
  }
  return Object.freeze([...new Set(names)]);
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  return oneOf(env, name, ['true', 'false'] as const, fallback ? 'true' : 'false') === 'true';
}

/** Parses and validates the environment. Throws ConfigError with one sentence naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  const logLevel = oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info');
  const prefix = queuePrefix(env);
  const config: Config = {
    port: integer(env, 'PORT', 8080, [0, 65535]),
    host: read(env, 'HOST') ?? '0.0.0.0',
    redisUrl: redisUrl(env),
    queuePrefix: prefix,
    redis: redisTopology(env, prefix),
    kubeconfig: read(env, 'KUBECONFIG'),
    kubeContext: read(env, 'KUBE_CONTEXT'),
    auth: authConfig(env),
    dashboard: dashboard(env),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 10, [1, 1000]),
    pollIntervalMs: integer(env, 'POLL_INTERVAL_MS', 1000, [10, 3_600_000]),
    readinessTimeoutSeconds: integer(env, 'READINESS_TIMEOUT_SECONDS', 600, [1, 86_400]),
    rootCertSyncTimeoutSeconds: integer(env, 'ROOT_CERT_SYNC_TIMEOUT_SECONDS', 600, [1, 86_400]),
    bounceMode: oneOf(env, 'BOUNCE_MODE', BOUNCE_MODES, 'evict'),
    defaultMaxUnavailable: maxUnavailable(env),
    kubeQps: integer(env, 'KUBE_QPS', 50, [1, 100_000]),
    kubeBurst: integer(env, 'KUBE_BURST', 100, [1, 100_000]),
    logLevel,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1_048_576, [1024, 64 * 1_048_576]),
    bodyTimeoutSeconds: integer(env, 'BODY_TIMEOUT_SECONDS', 10, [1, 600]),
    jobLockMs: integer(env, 'JOB_LOCK_MS', 30_000, [1000, 600_000]),
    notify: notify(env),
    allowedNamespaces: allowedNamespaces(env),
    inlineDirectives: flag(env, 'INLINE_DIRECTIVES', true),
    maxSelectors: integer(env, 'MAX_SELECTORS', 64, [1, 10_000]),
    retentionDays: integer(env, 'RETENTION_DAYS', 30, [1, 3650]),
  };
  return Object.freeze(config);
}

/** The serve role refuses to start without an explicit auth decision: secure by default. */
export function assertAuthConfigured(config: Config): void {
  if (!hasAuthMode(config.auth)) {
    throw new ConfigError(
      'WEBHOOK_AUTH must be set to "none", or WEBHOOK_TOKENS, WEBHOOK_HMAC_SECRET, WEBHOOK_STANDARD_SECRET or WEBHOOK_TOKENREVIEW_AUDIENCE configured, before the events endpoint can start.',
    );
  }
}
