import { ApiException } from '@kubernetes/client-node';
import {
  ConflictError,
  NotFoundError,
  PermanentError,
  TransientError,
  type BouncerError,
} from '../errors.js';
import { boundedText } from '../bounded-text.js';

/**
 * The most of an API server's answer kept in an error's message: a 422 may quote the refused
 * value, which can be as long as the object, and the message goes on into the status and the job.
 */
const DETAIL_BYTES = 1024;

/** The `message` of a Kubernetes Status body, which client-node hands over as a raw string. */
function statusMessage(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return body.slice(0, 200) || undefined;
  }
}

function retryAfter(headers: Record<string, string> | undefined): number | undefined {
  const value = Number(headers?.['retry-after']);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Maps what client-node throws onto the project's error vocabulary: 404 gone, 409 conflict,
 * 429/5xx and network failures retryable, anything else (403, 422, …) permanent.
 */
export function mapApiError(error: unknown, what: string): BouncerError {
  if (error instanceof ApiException) {
    const code = (error as ApiException<unknown>).code;
    const answer = statusMessage((error as ApiException<unknown>).body) ?? `HTTP ${code}`;
    const detail = boundedText(answer, DETAIL_BYTES);
    const message = `${what}: ${detail}`;
    if (code === 404) return new NotFoundError(message, { cause: error });
    if (code === 409) return new ConflictError(message, { cause: error });
    if (code === 429 || code >= 500) {
      const headers = (error as ApiException<unknown>).headers;
      return new TransientError(message, retryAfter(headers), { cause: error });
    }
    return new PermanentError(message, code, { cause: error });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new TransientError(`${what}: Kubernetes API unreachable (${detail})`, undefined, {
    cause: error,
  });
}
