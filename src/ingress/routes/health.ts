import type { FastifyInstance } from 'fastify';
import { messageOf } from '../../errors.js';
import type { AppDeps } from '../deps.js';

const PROBE_TIMEOUT_MS = 2000;

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    work,
    new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`${what} did not answer in ${PROBE_TIMEOUT_MS} ms`)),
        PROBE_TIMEOUT_MS,
      ).unref(),
    ),
  ]);
}

async function check(work: () => Promise<unknown>, what: string): Promise<string> {
  try {
    await withTimeout(work(), what);
    return 'ok';
  } catch (error) {
    return messageOf(error);
  }
}

/**
 * `/healthz`: the process answers. `/readyz`: Redis answers. The API server's state is reported
 * in the body but never makes the api unready: during an API-server blip senders must get the
 * designed 503 with Retry-After from /v1/events, not a connection refused by a Service that took
 * every replica out of its endpoints.
 */
export function healthRoutes(deps: AppDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      const [redis, kubernetes] = await Promise.all([
        check(() => deps.redis.ping(), 'Redis'),
        check(() => deps.kube.ping(), 'The Kubernetes API'),
      ]);
      const ready = redis === 'ok';
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not ready', redis, kubernetes });
    });
  };
}
