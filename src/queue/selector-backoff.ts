/**
 * The backoff type every selector job carries (`backoff: {type: SELECTOR_BACKOFF}`). A name of our
 * own on purpose: BullMQ computes the delay of its built-in types (`fixed`, `exponential`) itself
 * and calls the worker's `settings.backoffStrategy` only for a type it does not know.
 */
export const SELECTOR_BACKOFF = 'selector';

const FIRST_CEILING_MS = 1000;
const MAX_CEILING_MS = 30_000;

/**
 * The delay before a selector job runs again after a transient failure, `attemptsMade` being
 * BullMQ's count of attempts made with the failing one (1 for the first failure).
 *
 * Guarantee: the ceiling is 1 s doubled with each attempt and capped at 30 s, and the delay lies
 * between half the ceiling and all of it (rounded to the millisecond): jobs that failed together,
 * in an API server outage, do not all come back in the same second.
 */
export function selectorBackoff(attemptsMade: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_CEILING_MS, FIRST_CEILING_MS * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
