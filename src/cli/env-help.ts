/**
 * The environment variables each subcommand reads, for its `--help`. Kept beside the commands so
 * that a new variable in `config.ts` is added to the help of the roles that use it.
 */

const SHARED: [string, string][] = [
  ['REDIS_URL', 'Redis connection (default redis://127.0.0.1:6379; rediss:// for TLS)'],
  ['REDIS_SENTINELS, REDIS_SENTINEL_NAME', 'a Sentinel-watched Redis instead of REDIS_URL'],
  ['REDIS_CLUSTER_NODES', 'a Redis Cluster instead of REDIS_URL'],
  ['REDIS_USERNAME, REDIS_PASSWORD, REDIS_TLS', 'Redis credentials and TLS'],
  ['QUEUE_PREFIX', 'BullMQ key prefix (default pod-bouncer)'],
  ['KUBECONFIG, KUBE_CONTEXT', 'Kubernetes API access (default in-cluster, else ~/.kube/config)'],
  ['KUBE_QPS, KUBE_BURST', 'client-side rate limit towards the API server (default 50, 100)'],
  ['PORT, HOST', 'HTTP listener (default 8080, 0.0.0.0)'],
  ['LOG_LEVEL', 'fatal, error, warn, info (default), debug, trace or silent'],
];

const SERVE: [string, string][] = [
  ['WEBHOOK_AUTH', '"none" to accept unauthenticated events (explicitly)'],
  ['WEBHOOK_TOKENS', 'comma-separated static bearer tokens'],
  ['WEBHOOK_HMAC_SECRET', 'X-Signature-256 HMAC secret'],
  ['WEBHOOK_STANDARD_SECRET', 'Standard Webhooks secret (whsec_…)'],
  ['WEBHOOK_TOKENREVIEW_AUDIENCE', 'audience of service-account tokens checked by TokenReview'],
  ['WEBHOOK_ALLOWED_SERVICEACCOUNTS', 'namespace:name,… allowed with TokenReview'],
  ['ALLOWED_NAMESPACES', 'namespaces selectors may touch (default every namespace)'],
  ['INLINE_DIRECTIVES', '"false" refuses inline directives'],
  ['MAX_SELECTORS', 'most selectors a directive may have (default 64)'],
  ['BODY_LIMIT_BYTES, BODY_TIMEOUT_SECONDS', 'largest event body, time to receive it'],
  ['DASHBOARD_USER, DASHBOARD_PASSWORD', 'enable the /admin/queues dashboard'],
];

const WORK: [string, string][] = [
  ['WORKER_CONCURRENCY', 'jobs processed at once (default 10)'],
  ['POLL_INTERVAL_MS', 're-check interval of a waiting job (default 1000)'],
  ['READINESS_TIMEOUT_SECONDS', 'how long to wait for Ready replacements (default 600)'],
  ['ROOT_CERT_SYNC_TIMEOUT_SECONDS', 'how long to wait for the root cert (default 600)'],
  ['BOUNCE_MODE', 'default bounceMode: delete, evict or rollout'],
  ['DEFAULT_MAX_UNAVAILABLE', 'default maxUnavailable (default 25%)'],
  ['RETENTION_DAYS', 'how long finished jobs are kept (default 30)'],
  ['NOTIFY_URL, K_SINK, NOTIFY_FORMAT', 'where status transitions are sent'],
];

export const CLIENT_ENV: [string, string][] = [
  ['POD_BOUNCER_URL', 'the api to talk to (default http://127.0.0.1:8080)'],
  ['POD_BOUNCER_TOKEN', 'bearer token (one of WEBHOOK_TOKENS, or a service-account token)'],
  ['POD_BOUNCER_HMAC_SECRET', 'sign requests with X-Signature-256 (WEBHOOK_HMAC_SECRET)'],
  ['POD_BOUNCER_STANDARD_SECRET', 'sign requests as Standard Webhooks (whsec_…)'],
];

export const DEMO_ENV: [string, string][] = [
  ['REDIS_URL', 'Redis connection (default redis://127.0.0.1:6379)'],
  ['LOG_LEVEL', 'pod-bouncer log level during the demo (default warn)'],
];

export const ROLE_ENV = {
  serve: [...SHARED, ...SERVE],
  work: [...SHARED, ...WORK],
  all: [...SHARED, ...SERVE, ...WORK],
};

/** The "Environment variables:" block appended to a subcommand's help. */
export function envHelp(variables: [string, string][]): string {
  const width = Math.max(...variables.map(([name]) => name.length));
  const lines = variables.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}`);
  return `\nEnvironment variables:\n${lines.join('\n')}\n`;
}
