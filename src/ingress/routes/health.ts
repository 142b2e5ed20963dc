import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from '../deps.js';
import { Reachability } from '../reachability.js';

/** The Kubernetes API is asked at most this often, whatever the number of probes (DESIGN §3). */
const KUBE_PROBE_EVERY_MS = 5000;

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
 * of its endpoints. Probes need no credentials, so what they cost is bounded here: the API server
 * is asked at most once every 5 s (and never behind the api's queued work, `KubeGateway.ping`),
 * Redis once for all the probes in flight, and each change of state is logged once
 * (`reachability.ts`).
 */
export const healthRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get('/healthz', { schema: { response: { 200: Health } } }, async () => ({ status: 'ok' }));
  const readiness = {
    schema: { response: { 200: Readiness, 503: Readiness } },
    // Loading the Kubernetes client holds the event loop: only once this answer is out.
    onResponse: async (): Promise<void> => deps.startKube?.(),
  };
  const redisReach = new Reachability('Redis', () => deps.redis.ping(), app.log, { maxAgeMs: 0 });
  const kubeReach = new Reachability('The Kubernetes API', () => deps.kube.ping(), app.log, {
    maxAgeMs: KUBE_PROBE_EVERY_MS,
  });
  app.get('/readyz', readiness, async (_request, reply) => {
    const [redis, kubernetes] = await Promise.all([redisReach.state(), kubeReach.state()]);
    const ready = redis === 'ok';
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', redis, kubernetes });
  });
};
