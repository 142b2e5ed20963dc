import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { buildApp } from '../ingress/app.js';
import { openIngest } from '../ingest/ingest-parts.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { DirectiveCache } from '../kube/informer-directives.js';
import type { Logger } from '../logger.js';
import type { Notifier } from '../notify/notifier.js';
import { readyOrTimeout } from '../queue/connection.js';
import { describeTopology } from '../queue/redis-topology.js';
import { reportOutages } from '../queue/redis-watch.js';
import { StatusWriter } from '../status/writer.js';
import { startDirectiveSweep } from '../metrics/directive-series.js';
import { DeferredKube, type LoadedKube } from './deferred-kube.js';
import { transitionObservers, warnIfEveryNamespace, type Role } from './role.js';

export interface ServeRole extends Role {
  app: FastifyInstance;
  /** The api's directive watch cache (answers events that carry a version); asking loads it. */
  directives(): Promise<DirectiveCache>;
  /** Rejects when the api's Kubernetes side cannot be loaded: the process must end (main.ts). */
  kubeFailure: Promise<never>;
  /** The BullMQ queue, once made: it is made on first use, or by `loadAll()`. */
  readonly queue: Queue;
  /**
   * Loads now what `serve` otherwise loads on first use (its Kubernetes side, the queues): a stack
   * that tests, benchmarks and the demo start is then complete before its first request.
   */
  loadAll(): Promise<void>;
  /** The producer connection (fail-fast), for callers that inspect Redis directly. */
  redis: Redis;
  /** Resolves once the writes that follow answers (PENDING and its Event) have all been made. */
  followUpsDone(): Promise<void>;
  url: string;
}

/** A gateway, or how to open one: `serve` opens its own on first use (see DeferredKube). */
export type GatewaySource = KubeGateway | (() => Promise<KubeGateway>);

/**
 * The api's Kubernetes side on a gateway: its directive watch cache (directives only, per
 * namespace on first use) and, with WEBHOOK_TOKENREVIEW_AUDIENCE, its token reviewer. Imported
 * here, not above: they load client-node, which `serve` loads after it listens.
 */
async function loadKube(config: Config, log: Logger, gateway: KubeGateway): Promise<LoadedKube> {
  const [{ sharedWatchCaches, watchSettingsFor }, { TokenReviewer }] = await Promise.all([
    import('../kube/watch-caches.js'),
    import('../kube/token-review.js'),
  ]);
  return {
    gateway,
    caches: sharedWatchCaches(gateway, log, watchSettingsFor(config)),
    tokenReviewer:
      config.auth.tokenReviewAudience !== undefined
        ? new TokenReviewer(gateway.kubeConfig)
        : undefined,
  };
}

/** With NOTIFY_URL or K_SINK, the notifier, on the api's fail-fast connection; imported only then. */
async function notifierOf(
  config: Config,
  redis: Redis,
  log: Logger,
): Promise<Notifier | undefined> {
  if (config.notify === undefined) return undefined;
  const { Notifier } = await import('../notify/notifier.js');
  return new Notifier(
    { connection: redis, prefix: config.queuePrefix },
    log.child({ component: 'notify' }),
  );
}

/** The HTTP role: builds the app on the real parts and listens. */
export async function startServe(
  config: Config,
  log: Logger,
  source: GatewaySource,
): Promise<ServeRole> {
  const parts = openIngest(config, log);
  const { redis, queues, followUps } = parts;
  reportOutages(redis, log, config.redis, 'api');
  warnIfEveryNamespace(config, log);
  if (!(await readyOrTimeout(redis, 5000)))
    log.warn(
      describeTopology(config.redis),
      'Redis is not reachable yet; events get 503 until it is',
    );
  let fail = (error: unknown): void => void error;
  const kubeFailure = new Promise<never>((_, reject) => {
    fail = reject;
  });
  // Whoever runs the role decides what a failure means; unobserved, it must not crash a test.
  kubeFailure.catch(() => undefined);
  const kube = new DeferredKube(async () => {
    const gateway = typeof source === 'function' ? await source() : source;
    return loadKube(config, log, gateway);
  }, fail);
  const notifier = await notifierOf(config, redis, log);
  const status = new StatusWriter(
    kube,
    log.child({ component: 'status' }),
    transitionObservers(notifier),
  );
  const app = await buildApp({
    ...parts,
    kube,
    status,
    directives: kube.directives,
    tokenReviewer: kube.tokenReviewer,
    startKube: () => void kube.side(),
  });
  // Series exist only for directives whose status this process wrote: its Kubernetes side is loaded.
  const stopSeriesSweep = startDirectiveSweep(async (ref) =>
    (await kube.side()).caches.directives.exists(ref),
  );
  const url = await app.listen({ port: config.port, host: config.host });
  log.info({ url }, 'pod-bouncer is listening');
  return {
    app,
    directives: async () => (await kube.side()).caches.directives,
    kubeFailure,
    get queue(): Queue {
      const queue = queues.made();
      if (queue === undefined) throw new Error('the queue is made on first use: call loadAll()');
      return queue;
    },
    async loadAll(): Promise<void> {
      await Promise.all([kube.side(), queues.queue()]);
    },
    redis,
    followUpsDone: () => followUps.drain(),
    url,
    async close(): Promise<void> {
      stopSeriesSweep();
      await app.close();
      await Promise.allSettled([queues.close(), kube.close(), notifier?.close()]);
      redis.disconnect();
    },
  };
}
