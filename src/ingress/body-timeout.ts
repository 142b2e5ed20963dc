import type { FastifyInstance } from 'fastify';
import { HttpProblem } from './http-errors.js';
import { announcesBody } from './unread-bodies.js';

/**
 * Limits the time a body may take to arrive once the headers are in (`BODY_TIMEOUT_SECONDS`): a
 * sender that stalls mid-upload gets a 408 with the usual `{error, message}` body and the
 * connection is closed, so a slow upload holds no memory past the timeout. Node's own
 * requestTimeout stays set a little later as a backstop; it is checked only every few seconds and
 * answers without a JSON body.
 *
 * The body stream is handed on as it is (no stream in between for every request): on timeout the
 * body reader is failed with the 408 through the stream's `error` event, which leaves the socket
 * open for the answer (destroying the request would close it unanswered).
 */
export function limitBodyTime(app: FastifyInstance, seconds: number): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    // A body that has fully arrived with its headers needs no timer.
    if (!announcesBody(request.headers) || request.raw.complete) {
      done(null, payload);
      return;
    }
    const timer = setTimeout(() => {
      payload.off('end', stop).off('close', stop);
      // The body reader listens for errors until the body ends; nobody else is told.
      if (payload.listenerCount('error') === 0) return;
      payload.emit(
        'error',
        // The socket itself is closed after the 408 is written (Connection: close).
        new HttpProblem(
          408,
          'request_timeout',
          `The request body did not arrive within ${seconds} s.`,
          { connection: 'close' },
        ),
      );
    }, seconds * 1000);
    function stop(): void {
      clearTimeout(timer);
      payload.off('end', stop).off('close', stop);
    }
    payload.on('end', stop).on('close', stop);
    done(null, payload);
  });
}
