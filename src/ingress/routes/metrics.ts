import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { observeQueue, registry } from '../../metrics/registry.js';
import type { AppDeps } from '../deps.js';

/**
 * `GET /metrics`: the process's registry in Prometheus text format. Job counts and queue depth
 * are read from Redis at scrape time; when Redis does not answer they are left out, and the rest
 * is still served (a scrape must not fail because of what it measures).
 */
export const metricsRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (
  app,
  { deps },
) => {
  // Counted at scrape time: the first scrape makes the queue if no request has yet.
  const forget = observeQueue({
    getJobCounts: async (...states) => (await deps.queues.queue()).getJobCounts(...states),
  });
  app.addHook('onClose', async () => {
    forget();
  });
  const schema = {
    summary: 'Prometheus metrics (text format)',
    produces: ['text/plain'],
    response: { 200: Type.String() },
  };
  app.get('/metrics', { schema }, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
};
