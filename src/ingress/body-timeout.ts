import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { HttpProblem } from './http-errors.js';

/** Whether the request announces a body at all (a GET without one needs no timer). */
function hasBody(headers: Record<string, unknown>): boolean {
  const length = headers['content-length'];
  if (typeof length === 'string') return length !== '0';
  return headers['transfer-encoding'] !== undefined;
}

/**
 * Limits the time a body may take to arrive once the headers are in (`BODY_TIMEOUT_SECONDS`): a
 * sender that stalls mid-upload gets a 408 with the usual `{error, message}` body and the
 * connection is closed, so a slow upload holds no memory past the timeout. Node's own
 * requestTimeout stays set a little later as a backstop; it is checked only every few seconds and
 * answers without a JSON body.
 */
export function limitBodyTime(app: FastifyInstance, seconds: number): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    // A body that has fully arrived with its headers (most events: one packet) needs no timer.
    if (!hasBody(request.headers) || request.raw.complete) return payload;
    const limited = new PassThrough();
    const timer = setTimeout(() => {
      // The socket itself is closed after the 408 is written (Connection: close).
      payload.unpipe(limited);
      limited.destroy(
        new HttpProblem(
          408,
          'request_timeout',
          `The request body did not arrive within ${seconds} s.`,
          { connection: 'close' },
        ),
      );
    }, seconds * 1000);
    const stop = (): void => clearTimeout(timer);
    payload
      .on('end', stop)
      .on('close', stop)
      .on('error', (error) => limited.destroy(error));
    limited.on('close', stop);
    payload.pipe(limited);
    return limited;
  });
}
