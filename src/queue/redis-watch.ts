import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { createProducerConnection, readyOrTimeout } from './connection.js';
import type { RedisTopology } from './redis-topology.js';

/** Where the queue's Redis is, in words and without credentials, for start-up errors and logs. */
export function redisTarget(topology: RedisTopology): string {
  switch (topology.kind) {
    case 'standalone': {
      const url = new URL(topology.url);
      return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
    }
    case 'sentinel':
      return `the master "${topology.name}" of the Sentinels ${topology.sentinels.map(({ host, port }) => `${host}:${port}`).join(',')}`;
    case 'cluster':
      return `the Cluster at ${topology.nodes.map(({ host, port }) => `${host}:${port}`).join(',')}`;
  }
}

/**
 * What a fresh connection met within `timeoutMs`: Redis ready, nothing, or Redis refusing the
 * database of the URL (its answer to SELECT, such as "ERR DB index is out of range"). ioredis
 * reports that refusal as an 'error' event and then becomes ready all the same, on database 0.
 */
export type RedisAnswer = 'ready' | 'silent' | { readonly refusedDatabase: string };

export async function redisAnswer(
  topology: RedisTopology,
  timeoutMs: number,
): Promise<RedisAnswer> {
  const redis = createProducerConnection(topology);
  let refused: string | undefined;
  // Connection refusals are expected while waiting; the caller says what they mean.
  redis.on('error', (error: Error & { command?: { name?: string } }) => {
    if (error.command?.name === 'select') refused ??= error.message;
  });
  try {
    const ready = await readyOrTimeout(redis, timeoutMs);
    if (refused !== undefined) return { refusedDatabase: refused };
    return ready ? 'ready' : 'silent';
  } finally {
    redis.disconnect();
  }
}

/** True once a fresh connection is ready (even on a database Redis refused), false after `timeoutMs`. */
export async function redisAnswers(topology: RedisTopology, timeoutMs: number): Promise<boolean> {
  return (await redisAnswer(topology, timeoutMs)) !== 'silent';
}

/**
 * Logs a Redis outage once, naming Redis and where it is (never its credentials), and once more
 * when it answers again. ioredis and BullMQ retry on their own; without this every retry would log
 * a connection error with its stack.
 */
export function reportOutages(
  redis: Redis,
  log: Logger,
  topology: RedisTopology,
  role: string,
): void {
  const target = redisTarget(topology);
  let down = false;
  redis.on('error', (error: Error & { code?: string }) => {
    if (down) return;
    down = true;
    log.warn(
      { redis: target, role, reason: error.code ?? error.message },
      `Redis at ${target} is unreachable (${error.code ?? error.message}); retrying until it answers`,
    );
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ redis: target, role }, `Redis at ${target} answers again`);
  });
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * True for the errors a lost Redis connection raises in BullMQ and ioredis while they reconnect.
 * `reportOutages` has said so once already; each of them is worth a debug line at most.
 */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: string }).code;
  if (code !== undefined && CONNECTION_CODES.has(code)) return true;
  return /Connection is closed|Stream isn't writeable|connect ETIMEDOUT|ECONNREFUSED/.test(
    error.message,
  );
}

/** An 'error' listener for BullMQ objects: connection trouble at debug, anything else at error. */
export function queueErrorListener(log: Logger, what: string): (error: Error) => void {
  return (error) => {
    if (isConnectionError(error)) log.debug({ err: error }, `${what}: Redis connection error`);
    else log.error({ err: error }, `${what} error`);
  };
}
