import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registry } from '../metrics/registry.js';

/**
 * The worker role has no events endpoint, but it bounces the pods: it still answers `/healthz`
 * (for a liveness probe) and serves its own `/metrics` (pods bounced, waits, API requests), which
 * only exist in the process that did the work.
 */
export async function buildOpsApp(log: FastifyBaseLogger): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: log });
  // Probes and scrapes every few seconds: not worth a log line each.
  const quiet = { logLevel: 'warn' as const };
  app.get('/healthz', quiet, async () => ({ status: 'ok' }));
  app.get('/metrics', quiet, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
  return app;
}
