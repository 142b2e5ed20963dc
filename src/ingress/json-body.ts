import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadEventError } from '../events/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact bytes received, for signature checks. */
    rawBody?: Buffer;
  }
}

/** Checks a signature over the exact bytes; throws (a 401) when they are not the signed ones. */
export type VerifyBody = (request: FastifyRequest, body: Buffer) => void;

/**
 * Replaces fastify's body parsers: JSON bodies are read as bytes, their signature (if the request
 * is to be admitted by one) verified over exactly those bytes, and only then parsed, so a syntax
 * error becomes a 400 that says so and an unsigned body is never parsed. Any other content type is
 * 415.
 */
export function registerJsonParsers(
  app: FastifyInstance,
  types: string[],
  verify: VerifyBody,
): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    types,
    { parseAs: 'buffer' },
    (
      request: FastifyRequest,
      body: Buffer,
      done: (error: Error | null, value?: unknown) => void,
    ) => {
      request.rawBody = body;
      try {
        verify(request, body);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (body.length === 0) {
        done(new BadEventError('body', 'is empty; send a JSON object'));
        return;
      }
      try {
        done(null, JSON.parse(body.toString('utf8')));
      } catch {
        done(new BadEventError('body', 'is not valid JSON'));
      }
    },
  );
}
