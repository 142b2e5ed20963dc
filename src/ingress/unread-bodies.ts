import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblem } from './http-errors.js';
import { methodNotAllowed, routeMethods } from './route-methods.js';

/** Whether the request announces a body at all. */
export function announcesBody(headers: Record<string, unknown>): boolean {
  const length = headers['content-length'];
  if (typeof length === 'string') return length !== '0';
  return headers['transfer-encoding'] !== undefined;
}

/** The answer to a path or method no route serves. */
export function noRoute(request: FastifyRequest): HttpProblem {
  return new HttpProblem(404, 'not_found', `No route ${request.method} ${request.url}.`);
}

/** A route takes a body when its schema declares one; every other route leaves it unread. */
function takesBody(request: FastifyRequest): boolean {
  return request.routeOptions.schema?.body !== undefined;
}

/**
 * DESIGN §2: a route that takes no body never reads one, on every route and port, and a path no
 * route serves costs nothing but its 404. On the instance given (the root of an app):
 *
 * - no content type has a parser that reads: the one parser answers "no body" and leaves the
 *   bytes on the wire. A route that takes a body registers its own parsers in a scope of its own
 *   (`registerJsonParsers`), behind its own `onRequest` credentials check;
 * - a path no route serves is answered 404, and a method its routes do not take 405 with
 *   `Allow`, when its headers arrive, before fastify looks at its content type;
 * - a request whose body has not all arrived, on a route that takes none, is answered with
 *   `Connection: close`: the socket is closed after the answer, rather than kept to receive (and
 *   discard) whatever the sender still sends.
 *
 * Add the hook after the ones every answer needs (the request id), and before any route: a 404 or
 * 405 leaves from here.
 */
export function leaveBodiesUnread(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  const methodsOf = routeMethods(app);
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) {
      const allowed = methodsOf(request);
      done(allowed.length === 0 ? noRoute(request) : methodNotAllowed(request, allowed));
      return;
    }
    if (!request.raw.complete && announcesBody(request.headers) && !takesBody(request)) {
      void reply.header('connection', 'close');
    }
    done();
  });
}
