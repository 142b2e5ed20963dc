/**
 * Configuration, read once from the environment at start-up and frozen.
 * Nothing else in the code base reads `process.env`: a bad value stops the process here with one
 * sentence that names the variable. Each variable is declared once, in config/variables.ts; each
 * area's parsing lives beside it in config/ (redis, auth, access, gates, notify).
 */

import type { RedisTopology } from './queue/redis-topology.js';
import type { BounceMode } from './directive/types.js';
import type { GatesConfig } from './gates/types.js';
import { parseMaxUnavailable, type MaxUnavailable } from './directive/max-unavailable.js';
import { allowedNamespaces, defaultConcurrency } from './config/access.js';
import { authConfig, dashboard, type AuthConfig, type DashboardConfig } from './config/auth.js';
import { parseCredentialNamespaces } from './config/credentials.js';
import {
  ConfigError,
  defaultText,
  readFlag,
  readInteger,
  readList,
  readSetting,
  readText,
  type Env,
} from './config/environment.js';
import { gates } from './config/gates.js';
import { notify, type NotifyConfig } from './config/notify.js';
import { queuePrefix, redisTopology, redisUrl } from './config/redis.js';
import { EVERY_NAMESPACE } from './config/variables.js';

export { ConfigError } from './config/environment.js';
export { assertAuthConfigured, hasAuthMode, type AuthConfig } from './config/auth.js';
export type { NotifyConfig } from './config/notify.js';
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
  readonly dashboard: DashboardConfig;
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
  /** New CloudEvent ids each credential may have remembered in any 24 h (CLOUDEVENT_IDS_PER_DAY). */
  readonly cloudEventIdsPerDay: number;
  /** How long finished jobs and run markers are kept in Redis (CloudEvent ids: 24 hours). */
  readonly retentionDays: number;
  /** Where status transitions are sent (NOTIFY_URL, else K_SINK), and how; undefined: not sent. */
  readonly notify: NotifyConfig | undefined;
  /** A selector's `soakSeconds` when it sets none (DEFAULT_SOAK_SECONDS). */
  readonly defaultSoakSeconds: number;
  readonly gates: GatesConfig;
}

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
    cloudEventIdsPerDay: readInteger(env, 'CLOUDEVENT_IDS_PER_DAY'),
    retentionDays: readInteger(env, 'RETENTION_DAYS'),
    defaultSoakSeconds: readInteger(env, 'DEFAULT_SOAK_SECONDS'),
    gates: gates(env),
  };
  return Object.freeze(config);
}
