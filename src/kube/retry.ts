import { TransientError } from '../errors.js';

/**
 * How often and how patiently the gateway repeats a request that failed transiently (network,
 * 429, 5xx) before handing the error to its caller. In-call retries absorb short blips cheaply;
 * longer outages still surface as TransientError and are retried by the queue with its own,
 * longer backoff.
 */
export interface RetryPolicy {
  /** Tries in all, the first included; 1 means no retry. */
  readonly attempts: number;
  /** First backoff; doubled on each further try, with jitter. */
  readonly baseDelayMs: number;
  /** Cap of the computed backoff. */
  readonly maxDelayMs: number;
  /** Cap of a server's Retry-After: a longer one is left to the queue's backoff. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  attempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 2000,
  maxRetryAfterMs: 5000,
});

/** Whether the error is worth another try now, given how many tries were made. */
export function shouldRetry(
  error: unknown,
  attempt: number,
  policy: RetryPolicy,
): error is TransientError {
  if (!(error instanceof TransientError) || attempt >= policy.attempts) return false;
  const retryAfterMs = (error.retryAfterSeconds ?? 0) * 1000;
  return retryAfterMs <= policy.maxRetryAfterMs;
}

/**
 * Wait before try `attempt + 1`: the server's Retry-After when it gave one (under the cap),
 * else exponential backoff with jitter (half fixed, half random) so that many callers do not retry in step.
 */
export function retryDelayMs(error: TransientError, attempt: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  if (error.retryAfterSeconds === undefined) return jittered;
  return Math.max(jittered, Math.min(policy.maxRetryAfterMs, error.retryAfterSeconds * 1000));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
