import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger } from 'fastify';
import { Type } from 'typebox';
import { KubeLoading } from '../deferred-kube.js';
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

async function check(
  log: FastifyBaseLogger,
  work: () => Promise<unknown>,
  what: string,
): Promise<string> {
  try {
    await withTimeout(work(), what);
    return 'ok';
  } catch (error) {
    // Not asked yet: serve loads its Kubernetes client once it listens.
    if (error instanceof KubeLoading) return 'starting';
    // The client's error text goes to the log; the body says only that it did not answer.
    log.warn({ err: error }, `${what} is not reachable`);
    return 'unreachable';
  }
}

const Health = Type.Object({ status: Type.String() });
const Readiness = Type.Object({
  status: Type.String(),
  redis: Type.String(),
  kubernetes: Type.String(),
});

/**
 * `/healthz`: the process answers. `/readyz`: Redis answers. The API server's state is reported
 * in the body (`ok`, `unreachable`, or `starting` while the Kubernetes client loads) but never
 * makes the api unready: during an API-server blip senders must get the designed 503 with
 * Retry-After from /v1/events, not a connection refused by a Service that took every replica out
 * of its endpoints.
 */
export const healthRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get('/healthz', { schema: { response: { 200: Health } } }, async () => ({ status: 'ok' }));
  const readiness = {
    schema: { response: { 200: Readiness, 503: Readiness } },
    // Loading the Kubernetes client holds the event loop: only once this answer is out.
    onResponse: async (): Promise<void> => deps.startKube?.(),
  };
  app.get('/readyz', readiness, async (request, reply) => {
    const [redis, kubernetes] = await Promise.all([
      check(request.log, () => deps.redis.ping(), 'Redis'),
      check(request.log, () => deps.kube.ping(), 'The Kubernetes API'),
    ]);
    const ready = redis === 'ok';
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', redis, kubernetes });
  });
};
