import type {
  FastifyPluginAsyncTypebox,
  TypeBoxTypeProvider,
} from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Logger } from '../../logger.js';
import { countEventResponse, noteEvent } from '../../metrics/events.js';
import { planEvent, type PlanLimits } from '../../planning/dry-run.js';
import { senderOf, signedGuard, type Authenticator } from '../auth.js';
import { planBounds } from '../../ingest/bounds.js';
import { ingestCloudEvent } from '../../ingest/cloudevents.js';
import { checkInlineApply } from '../../ingest/directive-source.js';
import { ingest } from '../../ingest/ingest.js';
import type { AppDeps } from '../deps.js';
import { registerJsonParsers } from '../json-body.js';
import { readEvent } from '../read-event.js';
import {
  AcceptedBody,
  DuplicateBody,
  EventBody,
  EventsQuery,
  errorResponses,
  IgnoredBody,
  PlanBody,
} from '../schemas.js';
import { Type } from 'typebox';
import { rememberWebhookAnswer } from '../webhook-replay.js';

export interface RouteOptions {
  deps: AppDeps;
  auth: Authenticator;
}

const schema = {
  summary: 'Accept a cert-issued event',
  querystring: EventsQuery,
  body: EventBody,
  response: {
    200: PlanBody,
    202: Type.Union([AcceptedBody, IgnoredBody, DuplicateBody]),
    ...errorResponses(400, 401, 403, 404, 408, 409, 413, 415, 422, 503),
  },
};

/**
 * A dry run stops when its client goes away, and answers before Node's backstop closes a silent
 * socket (`connectionTimeout`, the body timeout + 10 s: app.ts), never with a bare close.
 */
function planLimits(deps: AppDeps, reply: FastifyReply): PlanLimits {
  const closed = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) closed.abort();
  });
  return { signal: closed.signal, deadlineMs: deps.config.bodyTimeoutSeconds * 1000 + 5000 };
}

/** `POST /v1/events`: the single ingress for cert-issued events (DESIGN §2). */
export const eventsRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, auth },
) => {
  app.addHook('onResponse', (request, reply, done) => {
    if (request.method === 'POST') countEventResponse(request, reply.statusCode);
    done();
  });

  // The one route that reads a body, in a scope of its own: its parsers run only here, after the
  // route's onRequest has refused whoever brings no credential (unread-bodies.ts for the rest).
  // Structured-mode CloudEvents are JSON too; batches (cloudevents-batch+json) stay 415.
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    registerJsonParsers(
      scope,
      ['application/json', 'application/cloudevents+json'],
      (request, body) => auth.verifyBody(request, body),
    );
    scope.post('/v1/events', { schema, ...signedGuard(auth) }, async (request, reply) => {
      const { event, cloudEvent } = readEvent(request);
      noteEvent(request, { shape: event.shape });
      if (request.query.dryRun === true) {
        noteEvent(request, { outcome: 'dry_run' });
        const sender = senderOf(request);
        const bounds = planBounds(deps.config, sender, async (manifest) => {
          await checkInlineApply(deps, manifest, sender);
        });
        const plan = await planEvent(deps, event, bounds, planLimits(deps, reply));
        return reply.code(200).send(plan);
      }
      // fastify's request logger is a pino child carrying the request id: ingest logs with it. A
      // plain ignored event is answered without touching deps.
      const log = request.log as Logger;
      const scoped: AppDeps =
        event.kind === 'ignored' && cloudEvent === undefined ? deps : { ...deps, log };
      const sender = senderOf(request);
      const result = cloudEvent
        ? await ingestCloudEvent(scoped, cloudEvent, event, sender)
        : await ingest(scoped, event, sender);
      const outcome = 'ignored' in result ? 'ignored' : result.duplicate ? 'duplicate' : 'accepted';
      noteEvent(request, { outcome });
      if (log.isLevelEnabled('info')) {
        log.info({ shape: event.shape, cloudEvent, result }, 'cert-issued event handled');
      }
      const webhookId = request.podBouncerAuth?.webhookId;
      if (webhookId !== undefined) {
        await rememberWebhookAnswer(deps.redis, deps.config.queuePrefix, webhookId, result);
      }
      return reply.code(202).send(result);
    });
  });
};
