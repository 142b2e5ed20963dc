import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadEventError } from '../../events/errors.js';
import type { Logger } from '../../logger.js';
import { countEventResponse, noteEvent } from '../../metrics/events.js';
import type { AuthHooks } from '../auth.js';
import { ingestCloudEvent, readEvent } from '../cloudevents.js';
import type { AppDeps } from '../deps.js';
import { HttpProblem } from '../http-errors.js';
import { ingest } from '../ingest.js';
import { planEvent } from '../plan.js';

/** `?dryRun=true` (or `1`, or a bare `?dryRun`) asks for the plan instead of a run. */
function isDryRun(request: FastifyRequest): boolean {
  const value = (request.query as Record<string, unknown> | undefined)?.dryRun;
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1' || value === '') return true;
  throw new BadEventError('dryRun', 'must be true or false');
}

/** `POST /v1/events`: the single ingress for cert-issued events (DESIGN §2). */
export function eventsRoutes(deps: AppDeps, auth: AuthHooks) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onResponse', async (request, reply) => {
      if (request.method === 'POST') countEventResponse(request, reply.statusCode);
    });

    const guarded = { onRequest: auth.beforeBody, preHandler: auth.afterBody };
    app.post('/v1/events', guarded, async (request, reply) => {
      const dryRun = isDryRun(request);
      const { event, cloudEvent } = readEvent(request);
      noteEvent(request, { shape: event.shape });
      if (dryRun) {
        noteEvent(request, { outcome: 'dry_run' });
        return reply.code(200).send(await planEvent(deps, event));
      }
      // fastify's request logger is a pino child carrying the request id: ingest logs with it.
      const scoped: AppDeps = { ...deps, log: request.log as Logger };
      const result = cloudEvent
        ? await ingestCloudEvent(scoped, cloudEvent, event)
        : await ingest(scoped, event);
      const outcome = 'ignored' in result ? 'ignored' : result.duplicate ? 'duplicate' : 'accepted';
      noteEvent(request, { outcome });
      request.log.info({ shape: event.shape, cloudEvent, result }, 'cert-issued event handled');
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
