/**
 * What an event is refused for once it is read, in ingest's own words: the HTTP layer gives each
 * its status (ingress/http-errors.ts), controller mode its verdict (controller/refusal.ts). Their
 * messages are the sentences a sender reads.
 */

/** The credential (or the installation's settings) does not allow what the event asks. */
export class ForbiddenError extends Error {
  override readonly name = 'ForbiddenError';
}

/** A refusal that lifts with time: the sender may try again after `retryAfterSeconds`. */
export abstract class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The directive already started MAX_RUNS_PER_HOUR runs; another may start in a while. */
export class TooManyRunsError extends RetryLaterError {
  override readonly name = 'TooManyRunsError';
}

/** An inline directive that another field manager owns: nothing was applied. */
export class FieldManagerConflictError extends Error {
  override readonly name = 'FieldManagerConflictError';
}

/** A CloudEvent's source and id were already used by another sender or for another directive. */
export class CloudEventIdConflictError extends Error {
  override readonly name = 'CloudEventIdConflictError';
}

/** A credential's CloudEvents would make Redis remember more new ids than its daily budget. */
export class CloudEventIdsBudgetError extends RetryLaterError {
  override readonly name = 'CloudEventIdsBudgetError';
}
