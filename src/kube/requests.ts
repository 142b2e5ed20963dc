import type { KubeVerb } from '../metrics/kube.js';
import { observeKubeRequest } from '../metrics/kube.js';
import { mapApiError } from './api-errors.js';
import { RateLimiter } from './rate-limiter.js';
import {
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  shouldRetry,
  sleep,
  type RetryPolicy,
} from './retry.js';

/** One request as the metrics (`verb`) and the error messages (`what`, in words) name it. */
export interface KubeRequest {
  verb: KubeVerb;
  /** e.g. "read pod ns/name": the start of the mapped error's message. */
  what: string;
}

/** A pod as a deletion aims at it: the uid tells the pod from a replacement of the same name. */
export interface PodIdentity {
  namespace: string;
  name: string;
  uid: string;
}

/** How a deletion that may have landed is checked: the pod as it is now, undefined when gone. */
export type PodLookup = (
  namespace: string,
  name: string,
) => Promise<{ uid: string; terminating: boolean } | undefined>;

/** One try only: for readiness probes and for requests that must look before they repeat. */
export const NO_RETRY: RetryPolicy = { ...DEFAULT_RETRY_POLICY, attempts: 1 };

/**
 * The request machinery under every gateway call: each try takes a rate-limiter token, is counted
 * and timed by verb, and its failure is mapped to the project's errors (404 → NotFoundError,
 * 409 → ConflictError, 429/5xx/network → TransientError, anything else → PermanentError).
 * Transient failures are retried a few times (short jittered backoff, Retry-After honoured up to
 * a cap) before the caller sees them.
 */
export class KubeRequests {
  private readonly limiter: RateLimiter;
  private readonly retry: RetryPolicy;

  constructor(limits: { qps: number; burst: number }, retry: Partial<RetryPolicy> = {}) {
    this.limiter = new RateLimiter(limits.qps, limits.burst);
    this.retry = { ...DEFAULT_RETRY_POLICY, ...retry };
  }

  /**
   * Sends one request, retried on transient failures. Only for requests that are safe to repeat
   * blindly: reads, applies, resourceVersion-guarded patches, reviews. Deletions use `sendOnce`.
   */
  async call<T>(
    request: KubeRequest,
    send: () => Promise<T>,
    policy: RetryPolicy = this.retry,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      await this.limiter.take();
      try {
        return await observeKubeRequest(request.verb, send);
      } catch (error) {
        const mapped = mapApiError(error, request.what);
        if (!shouldRetry(mapped, attempt, policy)) throw mapped;
        await sleep(retryDelayMs(mapped, attempt, policy));
      }
    }
  }

  /**
   * One try, sent now: for the readiness probe, which must neither wait in the queue behind the
   * process's own work (a probe held there past its timeout says a busy API server is down) nor
   * let whoever sends probes fill that queue. It takes a token when one is there and is sent
   * without one otherwise: /readyz sends at most one every few seconds (`routes/health.ts`).
   */
  async probe<T>(request: KubeRequest, send: () => Promise<T>): Promise<T> {
    this.limiter.tryTake();
    try {
      return await observeKubeRequest(request.verb, send);
    } catch (error) {
      throw mapApiError(error, request.what);
    }
  }

  /**
   * A deletion (or eviction) whose answer was lost may have landed: before sending it again, read
   * the pod; gone, replaced (another uid) or terminating means it landed, and nothing is re-sent.
   * So a transient failure never turns into a second DELETE of a pod that is already going.
   */
  async sendOnce<T>(
    pod: PodIdentity,
    send: () => Promise<T>,
    landed: T,
    lookup: PodLookup,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await send();
      } catch (error) {
        if (!shouldRetry(error, attempt, this.retry)) throw error;
        await sleep(retryDelayMs(error, attempt, this.retry));
        const live = await lookup(pod.namespace, pod.name);
        if (live === undefined || live.uid !== pod.uid || live.terminating) return landed;
      }
    }
  }
}
