import { NotFoundError, PermanentError } from '../errors.js';
import { BadEventError, InvalidDirectiveError, invalidDirectiveMessage } from '../events/errors.js';
import { ForbiddenError, TooManyRunsError } from '../ingest/errors.js';
import { transition, type Transition } from '../status/projection.js';

/** What the controller does after an ingest failed, decided as a sender's answer would be. */
export type Verdict =
  { kind: 'gone' } | { kind: 'refused'; message: string } | { kind: 'later'; afterMs?: number };

/** The sentence a sender would read of a directive that cannot run (400, 403, 422), if it is one. */
function refusalOf(error: unknown): string | undefined {
  if (error instanceof InvalidDirectiveError) return invalidDirectiveMessage(error);
  if (error instanceof BadEventError || error instanceof ForbiddenError) return error.message;
  if (error instanceof PermanentError && error.httpStatus === 422) return error.message;
  return undefined;
}

/**
 * A sender would have been told why; in controller mode nobody is there to be told (DESIGN §4), so
 * a directive that cannot run (400, 403, 422) is refused in its status. A directive deleted since
 * (404) needs nothing. Anything else (the run budget's 429, Redis or the API server unavailable, an
 * unexpected error) is tried again later: it is not a verdict on the directive.
 */
export function verdictOf(error: unknown): Verdict {
  if (error instanceof NotFoundError) return { kind: 'gone' };
  if (error instanceof TooManyRunsError) {
    return { kind: 'later', afterMs: error.retryAfterSeconds * 1000 };
  }
  const message = refusalOf(error);
  return message === undefined ? { kind: 'later' } : { kind: 'refused', message };
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
