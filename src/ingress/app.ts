import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createAuthenticator } from './auth.js';
import type { AppDeps } from './deps.js';
import { HttpProblem, sendProblem } from './http-errors.js';
import { registerJsonParsers } from './json-body.js';
import { directiveRoutes } from './routes/directives.js';
import { eventsRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';

/** Builds the HTTP app; `main` listens, tests use `inject` or listen on port 0. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger = deps.log;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: deps.config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
  });
  registerJsonParsers(app, ['application/json']);
  app.setErrorHandler((error, request, reply) => sendProblem(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      new HttpProblem(404, 'not_found', `No route ${request.method} ${request.url}.`),
      request,
      reply,
    ),
  );
  const authenticate = createAuthenticator(deps.config.auth, deps.kube);
  await app.register(healthRoutes(deps));
  await app.register(eventsRoutes(deps, authenticate));
  await app.register(directiveRoutes(deps, authenticate));
  return app;
}
