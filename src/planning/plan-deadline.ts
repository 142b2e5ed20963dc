import { TransientError } from '../errors.js';

/** How a dry run is bounded: the request's close, and the time it may take. */
export interface PlanLimits {
  /** Aborted when the request is closed: nothing is planned for nobody. */
  signal?: AbortSignal | undefined;
  /** Time allowed to plan; past it the answer is a 503 (`planWithin`). */
  deadlineMs: number;
}

/** Seconds a sender is asked to wait before asking again for a plan that ran out of time. */
const RETRY_AFTER_SECONDS = 10;

/**
 * Runs `plan` with a signal that aborts when the request closes or `deadlineMs` passes, and
 * answers as soon as either happens, whatever reads are still in flight (they finish, nothing
 * new starts: `plan` checks the signal between selectors). Past the deadline the answer is a 503
 * with Retry-After rather than a partial plan: a plan that names some selectors but sums them
 * all would mislead the operator reading it, who expects the whole plan or a clear refusal.
 */
export async function planWithin<T>(
  limits: PlanLimits,
  what: string,
  plan: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const timeout = AbortSignal.timeout(limits.deadlineMs);
  const signal = limits.signal ? AbortSignal.any([limits.signal, timeout]) : timeout;
  const stopped = new Promise<never>((_resolve, reject) => {
    const stop = (): void => {
      const seconds = Math.ceil(limits.deadlineMs / 1000);
      reject(
        timeout.aborted
          ? new TransientError(
              `Planning ${what} did not finish within ${seconds} s (the API server answers slowly or the process's API budget is spent); ask again later.`,
              RETRY_AFTER_SECONDS,
            )
          : new TransientError('The request was closed; planning stopped.'),
      );
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  // The plan's own rejection after the answer (an aborted lane) is not a second answer.
  const work = plan(signal);
  work.catch(() => undefined);
  return Promise.race([work, stopped]);
}
