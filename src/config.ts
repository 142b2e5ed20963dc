/**
 * Configuration, read once from the environment at start-up and frozen.
 * Nothing else in the code base reads `process.env`: a bad value stops the process here with one
 * sentence that names the variable. Each variable is declared once, in config/variables.ts.
 */

import {
  parseRedisTopology,
  RedisSettingError,
  type RedisTopology,
} from './queue/redis-topology.js';

import type { BounceMode } from './directive/types.js';
import { parseMaxUnavailable, type MaxUnavailable } from './directive/max-unavailable.js';
import {
  ConfigError,
  defaultText,
  readChoice,
  readFlag,
  readInteger,
  readList,
  readSetting,
  readText,
} from './config/environment.js';
import {
  credentialNames,
  nameTokens,
  parseCredentialNamespaces,
  type NamedToken,
} from './config/credentials.js';
import { EVERY_NAMESPACE, NAMESPACE_PATTERN, SERVICE_ACCOUNT_PATTERN } from './config/variables.js';
import { alertNames } from './gates/alert-names.js';
import type { Gate } from './gates/types.js';
import { FIELD_MANAGER_MAX_LENGTH, inlineFieldManager } from './kube/field-manager.js';
import { parseWindowsText } from './gates/windows.js';

export { ConfigError } from './config/environment.js';

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
  /** Controller mode: workers watch directives and start their runs without an event. */
  readonly watchDirectives: boolean;
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
  /** ALLOWED_NAMESPACES=* : every namespace, chosen explicitly (no warning at start-up). */
  readonly everyNamespaceChosen: boolean;
  /**
   * CREDENTIAL_NAMESPACES: by credential name, the namespaces it may touch (within
   * allowedNamespaces); a credential not listed has allowedNamespaces.
   */
  readonly credentialNamespaces: ReadonlyMap<string, readonly string[]>;
  /** Requests each credential may make in any 60 s (RATE_LIMIT_PER_MINUTE; 429 above). */
  readonly rateLimitPerMinute: number;
  /** False refuses the inline form of the native body (403). */
  readonly inlineDirectives: boolean;
  /** Most selectors a directive may have (422 above). */
  readonly maxSelectors: number;
  /** A directive's `maxConcurrentSelectors` when it sets none (DEFAULT_MAX_CONCURRENT_SELECTORS). */
  readonly defaultMaxConcurrentSelectors: number;
  /** Runs a directive may start in any hour (MAX_RUNS_PER_HOUR; 429 above). */
  readonly maxRunsPerHour: number;
  /** How long finished jobs and run markers are kept in Redis (CloudEvent ids: 24 hours). */
  readonly retentionDays: number;
  /** Where status transitions are sent (NOTIFY_URL, else K_SINK), and how; undefined: not sent. */
  readonly notify: NotifyConfig | undefined;
  /** A selector's `soakSeconds` when it sets none (DEFAULT_SOAK_SECONDS). */
  readonly defaultSoakSeconds: number;
  readonly gates: GatesConfig;
}

export interface GatesConfig {
  /** PROMETHEUS_URL: alerts and query gates need it. */
  readonly prometheusUrl: string | undefined;
  readonly prometheusTokenFile: string | undefined;
  /** GATE_ALERTS and GATE_WINDOWS: the gates every directive gets. */
  readonly installation: readonly Gate[];
  readonly intervalSeconds: number;
  readonly timeoutSeconds: number;
}

export interface NotifyConfig {
  readonly url: string;
  readonly format: 'cloudevents' | 'slack';
}

export interface AuthConfig {
  /** `WEBHOOK_AUTH=none` given explicitly: the events endpoint accepts anyone. */
  readonly none: boolean;
  /** WEBHOOK_TOKENS, each with the name it goes by (`name=token`, else `token<i>`). */
  readonly tokens: readonly NamedToken[];
  readonly hmacSecret: string | undefined;
  /** Standard Webhooks signing key, the bytes after `whsec_` decoded from base64. */
  readonly standardSecret: Buffer | undefined;
  readonly tokenReviewAudience: string | undefined;
  readonly allowedServiceAccounts: readonly string[];
}

type Env = Record<string, string | undefined>;

function maxUnavailable(env: Env): MaxUnavailable {
  const raw = readText(env, 'DEFAULT_MAX_UNAVAILABLE') ?? defaultText('DEFAULT_MAX_UNAVAILABLE');
  const parsed = parseMaxUnavailable(/^\d+$/.test(raw) ? Number(raw) : raw);
  if (parsed === undefined) {
    throw new ConfigError(
      `DEFAULT_MAX_UNAVAILABLE must be a whole number of at least 1 or a percentage from 1% to 100%, not "${raw}".`,
    );
  }
  return parsed;
}

function url(
  env: Env,
  name: string,
  protocols: readonly string[],
  message: string,
): string | undefined {
  const raw = readText(env, name);
  if (raw === undefined) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === undefined || !protocols.includes(protocol)) throw new ConfigError(message);
  return raw;
}

function redisUrl(env: Env): string {
  const message = 'REDIS_URL must be a redis:// or rediss:// URL.';
  return url(env, 'REDIS_URL', ['redis:', 'rediss:'], message) ?? defaultText('REDIS_URL');
}

/** The default must be a value a directive could set itself: at most MAX_SELECTORS. */
function defaultConcurrency(env: Env): number {
  const value = readInteger(env, 'DEFAULT_MAX_CONCURRENT_SELECTORS');
  const limit = readInteger(env, 'MAX_SELECTORS');
  if (value > limit) {
    throw new ConfigError(
      `DEFAULT_MAX_CONCURRENT_SELECTORS is ${value}, more than MAX_SELECTORS (${limit}); lower it or raise MAX_SELECTORS.`,
    );
  }
  return value;
}

function queuePrefix(env: Env): string {
  // Set but empty (`QUEUE_PREFIX=`) is a mistake, not a wish for the default: two installations
  // that both meant a prefix of their own would share one queue.
  if (env.QUEUE_PREFIX !== undefined && env.QUEUE_PREFIX.trim() === '') {
    throw new ConfigError('QUEUE_PREFIX is set but empty; remove it or give it a value.');
  }
  const prefix = readText(env, 'QUEUE_PREFIX') ?? defaultText('QUEUE_PREFIX');
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
  const raw = readText(env, 'WEBHOOK_STANDARD_SECRET');
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
  const auth: AuthConfig = {
    none: readChoice(env, 'WEBHOOK_AUTH') === 'none',
    tokens: nameTokens(readList(env, 'WEBHOOK_TOKENS') ?? []),
    hmacSecret: readText(env, 'WEBHOOK_HMAC_SECRET'),
    standardSecret: standardSecret(env),
    tokenReviewAudience: readText(env, 'WEBHOOK_TOKENREVIEW_AUDIENCE'),
    allowedServiceAccounts: readList(env, 'WEBHOOK_ALLOWED_SERVICEACCOUNTS') ?? [],
  };
  const serviceAccount = new RegExp(SERVICE_ACCOUNT_PATTERN);
  for (const account of auth.allowedServiceAccounts) {
    if (!serviceAccount.test(account)) {
      throw new ConfigError(
        `WEBHOOK_ALLOWED_SERVICEACCOUNTS entries must look like namespace:name, not "${account}".`,
      );
    }
    // The API server refuses a longer field manager, which would make every inline directive of
    // this account fail at the apply.
    if (inlineFieldManager(account).length > FIELD_MANAGER_MAX_LENGTH) {
      throw new ConfigError(
        `WEBHOOK_ALLOWED_SERVICEACCOUNTS entry "${account}" is too long to name a field manager (pod-bouncer-<namespace>.<name>, at most ${FIELD_MANAGER_MAX_LENGTH} characters).`,
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
  const user = readText(env, 'DASHBOARD_USER');
  const password = readText(env, 'DASHBOARD_PASSWORD');
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError('DASHBOARD_USER and DASHBOARD_PASSWORD must be set together.');
  }
  return user !== undefined && password !== undefined ? { user, password } : undefined;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = readText(env, name);
  const message = `${name} must be an http:// or https:// URL, not "${raw}".`;
  return url(env, name, ['http:', 'https:'], message);
}

function notify(env: Env): NotifyConfig | undefined {
  const format = readSetting<NotifyConfig['format']>(env, 'NOTIFY_FORMAT');
  const target = httpUrl(env, 'NOTIFY_URL') ?? httpUrl(env, 'K_SINK');
  return target === undefined ? undefined : { url: target, format };
}

/** ALLOWED_NAMESPACES: undefined (every namespace) when unset or `*`, else the names. */
function allowedNamespaces(env: Env): readonly string[] | undefined {
  const names = readList(env, 'ALLOWED_NAMESPACES');
  if (names === undefined) return undefined;
  if (names.length === 0) {
    throw new ConfigError('ALLOWED_NAMESPACES must name at least one namespace when it is set.');
  }
  if (names.includes(EVERY_NAMESPACE)) {
    if (names.length > 1) {
      throw new ConfigError(
        'ALLOWED_NAMESPACES must be either * (every namespace) or a list of namespaces, not both.',
      );
    }
    return undefined;
  }
  const pattern = new RegExp(NAMESPACE_PATTERN);
  for (const name of names) {
    if (!pattern.test(name)) {
      throw new ConfigError(
        `ALLOWED_NAMESPACES must be a comma-separated list of namespace names, not "${name}".`,
      );
    }
  }
  return Object.freeze([...new Set(names)]);
}

function gates(env: Env): GatesConfig {
  const prometheusUrl = httpUrl(env, 'PROMETHEUS_URL');
  const installation: Gate[] = [];
  const alerts = readText(env, 'GATE_ALERTS');
  if (alerts !== undefined) {
    if (prometheusUrl === undefined) {
      throw new ConfigError('GATE_ALERTS needs PROMETHEUS_URL, the Prometheus it asks for alerts.');
    }
    const compiled = alertNames(alerts);
    if ('problem' in compiled) {
      throw new ConfigError(
        `GATE_ALERTS must be an RE2 regular expression of alert names (as PromQL's =~), not "${alerts}": ${compiled.problem}.`,
      );
    }
    installation.push({ alerts });
  }
  const windows = readText(env, 'GATE_WINDOWS');
  if (windows !== undefined) {
    try {
      installation.push({ windows: parseWindowsText(windows) });
    } catch (error) {
      throw new ConfigError(`GATE_WINDOWS is not valid: ${(error as Error).message}.`);
    }
  }
  return {
    prometheusUrl,
    prometheusTokenFile: readText(env, 'PROMETHEUS_TOKEN_FILE'),
    installation: Object.freeze(installation),
    intervalSeconds: readInteger(env, 'GATE_INTERVAL_SECONDS'),
    timeoutSeconds: readInteger(env, 'GATE_TIMEOUT_SECONDS'),
  };
}

/** Parses and validates the environment. Throws ConfigError with one sentence naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  const logLevel = readSetting(env, 'LOG_LEVEL');
  const prefix = queuePrefix(env);
  const allowed = allowedNamespaces(env);
  const config: Config = {
    port: readInteger(env, 'PORT'),
    host: readText(env, 'HOST') ?? defaultText('HOST'),
    redisUrl: redisUrl(env),
    queuePrefix: prefix,
    redis: redisTopology(env, prefix),
    kubeconfig: readText(env, 'KUBECONFIG'),
    kubeContext: readText(env, 'KUBE_CONTEXT'),
    auth: authConfig(env),
    dashboard: dashboard(env),
    workerConcurrency: readInteger(env, 'WORKER_CONCURRENCY'),
    watchDirectives: readFlag(env, 'WATCH_DIRECTIVES'),
    pollIntervalMs: readInteger(env, 'POLL_INTERVAL_MS'),
    readinessTimeoutSeconds: readInteger(env, 'READINESS_TIMEOUT_SECONDS'),
    rootCertSyncTimeoutSeconds: readInteger(env, 'ROOT_CERT_SYNC_TIMEOUT_SECONDS'),
    bounceMode: readSetting<BounceMode>(env, 'BOUNCE_MODE'),
    defaultMaxUnavailable: maxUnavailable(env),
    kubeQps: readInteger(env, 'KUBE_QPS'),
    kubeBurst: readInteger(env, 'KUBE_BURST'),
    logLevel,
    bodyLimitBytes: readInteger(env, 'BODY_LIMIT_BYTES'),
    bodyTimeoutSeconds: readInteger(env, 'BODY_TIMEOUT_SECONDS'),
    jobLockMs: readInteger(env, 'JOB_LOCK_MS'),
    notify: notify(env),
    allowedNamespaces: allowed,
    everyNamespaceChosen: readText(env, 'ALLOWED_NAMESPACES') === EVERY_NAMESPACE,
    credentialNamespaces: parseCredentialNamespaces(
      readList(env, 'CREDENTIAL_NAMESPACES'),
      allowed,
    ),
    rateLimitPerMinute: readInteger(env, 'RATE_LIMIT_PER_MINUTE'),
    inlineDirectives: readFlag(env, 'INLINE_DIRECTIVES'),
    maxSelectors: readInteger(env, 'MAX_SELECTORS'),
    defaultMaxConcurrentSelectors: defaultConcurrency(env),
    maxRunsPerHour: readInteger(env, 'MAX_RUNS_PER_HOUR'),
    retentionDays: readInteger(env, 'RETENTION_DAYS'),
    defaultSoakSeconds: readInteger(env, 'DEFAULT_SOAK_SECONDS'),
    gates: gates(env),
  };
  return Object.freeze(config);
}

/**
 * The serve role refuses to start without an explicit auth decision: secure by default. Nor does
 * it start when CREDENTIAL_NAMESPACES names a credential it does not take: a misspelt name would
 * leave the credential it meant with every namespace of ALLOWED_NAMESPACES.
 */
export function assertAuthConfigured(config: Config): void {
  if (!hasAuthMode(config.auth)) {
    throw new ConfigError(
      'WEBHOOK_AUTH must be set to "none", or WEBHOOK_TOKENS, WEBHOOK_HMAC_SECRET, WEBHOOK_STANDARD_SECRET or WEBHOOK_TOKENREVIEW_AUDIENCE configured, before the events endpoint can start.',
    );
  }
  const known = credentialNames(config.auth);
  for (const name of config.credentialNamespaces.keys()) {
    if (!known.has(name)) {
      throw new ConfigError(
        `CREDENTIAL_NAMESPACES names "${name}", which is not a configured credential (a WEBHOOK_TOKENS name, hmac, standard, or a WEBHOOK_ALLOWED_SERVICEACCOUNTS entry).`,
      );
    }
  }
}
