import { domainProblem } from '../ingress/http-errors.js';
import { transition, type Transition } from '../status/projection.js';

/** What the controller does after an ingest failed, decided from the answer a sender would get. */
export type Verdict =
  { kind: 'gone' } | { kind: 'refused'; message: string } | { kind: 'later'; afterMs?: number };

/**
 * A sender would have been told why; in controller mode nobody is there to be told (DESIGN §4), so
 * a directive that cannot run (400, 403, 422) is refused in its status. A directive deleted since
 * (404) needs nothing. Anything else (the run budget's 429, Redis or the API server unavailable, an
 * unexpected error) is tried again later: it is not a verdict on the directive.
 */
export function verdictOf(error: unknown): Verdict {
  const problem = domainProblem(error);
  if (problem === undefined) return { kind: 'later' };
  if (problem.statusCode === 404) return { kind: 'gone' };
  const retryAfter = Number(problem.headers['retry-after']);
  if (problem.statusCode === 429 && Number.isFinite(retryAfter)) {
    return { kind: 'later', afterMs: retryAfter * 1000 };
  }
  if ([400, 403, 422].includes(problem.statusCode)) {
    return { kind: 'refused', message: problem.message };
  }
  return { kind: 'later' };
}

/**
 * The directive of `generation` cannot run: FAILED with `observedGeneration`, an `error` that starts
 * with `directive: `, Stalled True, and a Warning Event `Refused`. Its status then describes the
 * generation, so the controller starts nothing more for it until it changes.
 */
export function refused(generation: number, message: string): Transition {
  const error = `directive: ${message}`;
  return transition('refused', {
    desired: {
      generation,
      state: 'FAILED',
      error,
      ready: { status: 'False', reason: 'Failed', message: error },
      reconciling: false,
      stalled: 'Failed',
    },
    event: { type: 'Warning', reason: 'Refused', message: `Not started: ${message}` },
  });
}
