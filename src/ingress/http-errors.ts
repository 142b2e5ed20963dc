import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, PermanentError, TransientError } from '../errors.js';
import { BadEventError, InvalidDirectiveError, invalidDirectiveMessage } from '../events/errors.js';
import {
  CloudEventIdConflictError,
  RetryLaterError,
  FieldManagerConflictError,
  ForbiddenError,
  TooManyRunsError,
} from '../ingest/errors.js';

/** An HTTP answer other than success, with the `{error, message}` body every error carries. */
export class HttpProblem extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const FASTIFY_CODES: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'bad_request'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'bad_request'],
  FST_ERR_VALIDATION: [400, 'bad_request'],
};

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request did not arrive in time.'],
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'The request headers are over the size limit.'],
};

/**
 * Node's own answers to requests it cannot hand to fastify (header overflow, request timeout, a
 * malformed request line), written on the socket with the `{error, message}` body every error has.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    400,
    'bad_request',
    'The request is not valid HTTP.',
  ];
  const body = JSON.stringify({ error: code, message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function fastifyMessage(code: string, error: FastifyError, request: FastifyRequest): string {
  if (code === 'unsupported_media_type') {
    return `Content type "${request.headers['content-type'] ?? '(none)'}" is not supported; send application/json or a CloudEvent.`;
  }
  if (code === 'payload_too_large') return 'The request body is over the size limit.';
  return error.message;
}

/** The answer an event's refusal by ingest gets, or undefined for any other error. */
function ingestProblem(error: unknown): HttpProblem | undefined {
  if (error instanceof ForbiddenError) return new HttpProblem(403, 'forbidden', error.message);
  if (error instanceof RetryLaterError) {
    const headers = { 'retry-after': String(error.retryAfterSeconds) };
    const code = error instanceof TooManyRunsError ? 'too_many_runs' : 'rate_limited';
    return new HttpProblem(429, code, error.message, headers);
  }
  if (error instanceof FieldManagerConflictError) {
    return new HttpProblem(409, 'conflict', error.message);
  }
  if (error instanceof CloudEventIdConflictError) {
    return new HttpProblem(409, 'cloudevent_id_conflict', error.message);
  }
  return undefined;
}

/** The answer the project's own errors get, or undefined for anything else. */
export function domainProblem(error: unknown): HttpProblem | undefined {
  if (error instanceof HttpProblem) return error;
  if (error instanceof BadEventError) return new HttpProblem(400, 'bad_request', error.message);
  if (error instanceof InvalidDirectiveError) {
    return new HttpProblem(422, 'invalid_directive', invalidDirectiveMessage(error));
  }
  const refused = ingestProblem(error);
  if (refused) return refused;
  if (error instanceof NotFoundError) return new HttpProblem(404, 'not_found', error.message);
  if (error instanceof TransientError) {
    const retryAfter = String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? 5)));
    // One that wraps a client's error (Redis, the API server) carries their words: logs only.
    const message =
      error.cause === undefined
        ? error.message
        : 'Redis or the Kubernetes API is unavailable; try again shortly.';
    return new HttpProblem(503, 'unavailable', message, { 'retry-after': retryAfter });
  }
  if (error instanceof PermanentError) {
    return error.httpStatus === 422
      ? new HttpProblem(422, 'invalid_directive', error.message)
      : new HttpProblem(
          502,
          'kubernetes_error',
          'The Kubernetes API refused the request; see pod-bouncer logs.',
        );
  }
  return undefined;
}

/** Translates any error into the contract's status codes; 5xx details stay in the logs. */
export function toProblem(error: unknown, request: FastifyRequest): HttpProblem {
  const domain = domainProblem(error);
  if (domain) return domain;
  const fastifyError = error as FastifyError;
  const known = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (known)
    return new HttpProblem(known[0], known[1], fastifyMessage(known[1], fastifyError, request));
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) {
    return new HttpProblem(fastifyError.statusCode, 'bad_request', fastifyError.message);
  }
  return new HttpProblem(
    500,
    'internal',
    'pod-bouncer failed to handle the request; see its logs.',
  );
}

/** Whether the request brought a credential that passed (a token, or a verified signature). */
function admitted(request: FastifyRequest): boolean {
  const auth = request.podBouncerAuth;
  return auth?.admitted === true || auth?.verified === true;
}

/**
 * How an answer is logged. A failure (a 5xx that is not a "try again" of our own, such as the
 * TokenReview budget's) is an error, with its stack. A refusal of a request that brought no valid
 * credential goes to the app's `RefusalLog` (at most a line a second in aggregate); any other
 * refusal is a line of its own.
 */
function logProblem(error: unknown, problem: HttpProblem, request: FastifyRequest): void {
  const ours = error instanceof TransientError && error.cause === undefined;
  if (problem.statusCode >= 500 && !ours) {
    request.log.error({ err: error }, 'request failed');
    return;
  }
  const refusals = request.server.refusals;
  if (refusals !== undefined && !admitted(request)) {
    refusals.note(request, problem);
    return;
  }
  request.log.info(
    { status: problem.statusCode, code: problem.code, reason: problem.message },
    'request refused',
  );
}

export async function sendProblem(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const problem = toProblem(error, request);
  logProblem(error, problem, request);
  // Refused before its body was read (credentials, size, type, time): the connection is closed
  // after the answer rather than kept to receive, and discard, whatever the sender still sends.
  if (!request.raw.complete) void reply.header('connection', 'close');
  await reply
    .code(problem.statusCode)
    .headers(problem.headers)
    .type('application/json')
    .send({ error: problem.code, message: problem.message });
}
