import type { FastifyInstance } from 'fastify';
import { normalizeBody } from '../../events/normalize.js';
import type { Authenticate } from '../auth.js';
import type { AppDeps } from '../deps.js';
import { HttpProblem } from '../http-errors.js';
import { ingest } from '../ingest.js';

/** `POST /v1/events`: the single ingress for cert-issued events (DESIGN §2). */
export function eventsRoutes(deps: AppDeps, authenticate: Authenticate) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/v1/events', { preHandler: authenticate }, async (request, reply) => {
      const event = normalizeBody(request.body);
      const result = await ingest(deps, event);
      request.log.info({ shape: event.shape, result }, 'cert-issued event handled');
      return reply.code(202).send(result);
    });

    app.route({
      method: ['GET', 'PUT', 'DELETE', 'PATCH'],
      url: '/v1/events',
      handler: async (_request, reply) => {
        reply.header('allow', 'POST');
        throw new HttpProblem(405, 'method_not_allowed', 'Only POST is allowed on /v1/events.', {
          allow: 'POST',
        });
      },
    });
  };
}
