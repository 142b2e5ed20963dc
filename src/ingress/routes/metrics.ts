import type { FastifyInstance } from 'fastify';
import { observeQueue, registry } from '../../metrics/registry.js';
import type { AppDeps } from '../deps.js';

/**
 * `GET /metrics`: the process's registry in Prometheus text format. Job counts and queue depth
 * are read from Redis at scrape time; when Redis does not answer they are left out, and the rest
 * is still served (a scrape must not fail because of what it measures).
 */
export function metricsRoutes(deps: AppDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    const forget = observeQueue(deps.queue);
    app.addHook('onClose', async () => {
      forget();
    });
    app.get('/metrics', async (_request, reply) => {
      const text = await registry.metrics();
      return reply.type(registry.contentType).send(text);
    });
  };
}
