import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registry } from '../metrics/registry.js';
import { sendProblem } from './http-errors.js';
import { refuseUnknownQuery } from './query-params.js';
import { requestLogging } from './refusal-log.js';
import { leaveBodiesUnread, noRoute } from './unread-bodies.js';

/**
 * The worker role has no events endpoint, but it bounces the pods: it still answers `/healthz`
 * (for a liveness probe) and serves its own `/metrics` (pods bounced, waits, API requests), which
 * only exist in the process that did the work. No route of it takes a body: none is ever read, and
 * an unknown path is a 404 decided on its headers (DESIGN §2, on every port).
 */
export async function buildOpsApp(log: FastifyBaseLogger): Promise<FastifyInstance> {
  const lines = requestLogging(log);
  const app = Fastify({
    loggerInstance: log,
    logController: lines.logController,
    // A URL the router cannot decode (`%zz`) gets the same {error, message} body as the rest.
    frameworkErrors: (error, request, reply) => {
      void sendProblem(error, request, reply);
    },
  });
  leaveBodiesUnread(app);
  app.decorate('refusals', lines.refusals);
  app.setErrorHandler((error, request, reply) => sendProblem(error, request, reply));
  app.setNotFoundHandler((request, reply) => sendProblem(noRoute(request), request, reply));
  refuseUnknownQuery(app);
  // Probes and scrapes every few seconds: not worth a log line each.
  const quiet = { logLevel: 'warn' as const };
  app.get('/healthz', quiet, async () => ({ status: 'ok' }));
  app.get('/metrics', quiet, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
  return app;
}
