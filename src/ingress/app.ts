import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createAuthenticator } from './auth.js';
import { dashboardPlugin } from './dashboard.js';
import type { AppDeps } from './deps.js';
import { HttpProblem, sendProblem } from './http-errors.js';
import { registerJsonParsers } from './json-body.js';
import { directiveRoutes } from './routes/directives.js';
import { eventsRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';

/** Probes, scrapes and the dashboard's static files: every few seconds, not worth a line each. */
const ROUTINE = [/^\/healthz$/, /^\/readyz$/, /^\/metrics$/, /^\/admin\/queues\/static\//];

function quietRoutine(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.logLevel && ROUTINE.some((path) => path.test(route.url ?? ''))) {
      route.logLevel = 'warn';
    }
  });
}

/** Builds the HTTP app; `main` listens, tests use `inject` or listen on port 0. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger = deps.log;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: deps.config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
  });
  // Structured-mode CloudEvents are JSON too; batches (cloudevents-batch+json) stay 415.
  registerJsonParsers(app, ['application/json', 'application/cloudevents+json']);
  app.setErrorHandler((error, request, reply) => sendProblem(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      new HttpProblem(404, 'not_found', `No route ${request.method} ${request.url}.`),
      request,
      reply,
    ),
  );
  quietRoutine(app);
  const auth = createAuthenticator(deps.config.auth, deps.kube);
  await app.register(healthRoutes(deps));
  await app.register(eventsRoutes(deps, auth));
  await app.register(directiveRoutes(deps, auth));
  await app.register(metricsRoutes(deps));
  // Not mounted at all without credentials: /admin/queues is then a plain 404.
  if (deps.config.dashboard) await app.register(dashboardPlugin(deps, deps.config.dashboard));
  return app;
}
