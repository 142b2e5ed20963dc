import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registry } from '../metrics/registry.js';

/**
 * The worker role has no events endpoint, but it bounces the pods: it still answers `/healthz`
 * (for a liveness probe) and serves its own `/metrics` (pods bounced, waits, API requests), which
 * only exist in the process that did the work.
 */
export async function buildOpsApp(log: FastifyBaseLogger): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: log, disableRequestLogging: true });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/metrics', async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
  return app;
}
