/**
 * The error vocabulary shared by the gateway, the workflow and the HTTP layer. Each error keeps
 * its cause and says whether trying again can help: retryable errors are retried with backoff,
 * permanent ones fail the job (or the request) at once.
 */

export abstract class BouncerError extends Error {
  abstract readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The Kubernetes API or Redis could not be reached or answered 429/5xx. */
export class TransientError extends BouncerError {
  readonly retryable = true;
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An error that trying again cannot mend: the job (or the request) fails at once. */
abstract class FinalError extends BouncerError {
  readonly retryable = false;
}

/** The object asked for does not exist. */
export class NotFoundError extends FinalError {}

/** A write lost a race (resourceVersion or uid precondition). */
export class ConflictError extends FinalError {}

/** The API refused: forbidden, invalid, or otherwise not worth repeating. */
export class PermanentError extends FinalError {
  constructor(
    message: string,
    readonly httpStatus?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The API server refused a status write as invalid (422): something in it does not fit the CRD as
 * installed. Writing it again cannot help; a status that says less may be taken.
 */
export class StatusRefusedError extends PermanentError {
  static readonly SAYS = 'the status was refused by the API server';
  constructor(detail: string, options?: { cause?: unknown }) {
    super(`${StatusRefusedError.SAYS}: ${detail}`, 422, options);
  }
}

/** A wait ran past its configured limit. */
export class WaitTimeoutError extends FinalError {}

/** An operator aborted the run: the job fails terminally with the cause `aborted`. */
export class AbortedError extends FinalError {
  constructor() {
    super('aborted');
  }
}

/**
 * A start-up condition the operator must fix; the message is one sentence saying what to do. Not a
 * BouncerError: nothing retries it, the process ends with its sentence.
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

export function isRetryable(error: unknown): boolean {
  return error instanceof BouncerError ? error.retryable : false;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
