// Reading request bodies and writing JSON answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError, badRequest, unsupportedMediaType } from './api-errors.js';

// The API server's own request size limit.
const MAX_BODY_BYTES = 3 * 1024 * 1024;

const JSON_TYPES = new Set([
  'application/json',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
]);

export const APPLY_PATCH = 'application/apply-patch+yaml';

export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES)
      throw new ApiError(413, 'RequestEntityTooLarge', 'request entity too large');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Decodes a request body by its content type; undefined when there is none. */
export function decodeBody(raw: string, contentType: string): unknown {
  if (raw.trim() === '') return undefined;
  if (contentType === APPLY_PATCH) return decodeWith(() => parseYaml(raw) as unknown);
  if (JSON_TYPES.has(contentType) || contentType === '')
    return decodeWith(() => JSON.parse(raw) as unknown);
  throw unsupportedMediaType(contentType);
}

function decodeWith(decode: () => unknown): unknown {
  try {
    return decode();
  } catch (err) {
    throw badRequest(`error decoding request body: ${(err as Error).message}`);
  }
}

/** Writes a JSON answer, or a plain-text one when the body is a string (health endpoints). */
export function writeReply(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const isText = typeof body === 'string';
  const payload = isText ? body : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': isText ? 'text/plain; charset=utf-8' : 'application/json',
    'Content-Length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}
