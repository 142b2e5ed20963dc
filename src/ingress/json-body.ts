import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadEventError } from '../events/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact bytes received, for signature checks. */
    rawBody?: Buffer;
  }
}

/**
 * Replaces fastify's body parsers: JSON bodies are kept raw (HMAC is computed over the exact bytes)
 * and parsed here so a syntax error becomes a 400 that says so. Any other content type is 415.
 */
export function registerJsonParsers(app: FastifyInstance, types: string[]): void {
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
