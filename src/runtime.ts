import { FlowProducer, Queue, type Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import { buildApp } from './ingress/app.js';
import { loadKubeConfig } from './kube/client.js';
import { KubeGateway } from './kube/gateway.js';
import type { DirectiveCache } from './kube/informer-directives.js';
import { sharedWatchCaches } from './kube/watch-caches.js';
import type { Logger } from './logger.js';
import {
  createProducerConnection,
  createWorkerConnection,
  readyOrTimeout,
} from './queue/connection.js';
import { QUEUE_NAME } from './queue/names.js';
import { describeTopology } from './queue/redis-topology.js';
import { observeTransition } from './metrics/directives.js';
import { Notifier, startNotifyWorker } from './notify/notifier.js';
import { StatusReporter } from './status/reporter.js';
import { StatusWriter, type StatusWriterOptions } from './status/writer.js';
import { AbortFlags } from './workflow/run-control.js';
import { queueErrorListener, reportOutages } from './queue/redis-watch.js';
import { latestRun } from './queue/runs.js';
import { Wakeups } from './workflow/wakeups.js';
import { startWorker } from './workflow/worker.js';

/** Something started that must be stopped in order on shutdown. */
export interface Role {
  close(): Promise<void>;
}

/** Without ALLOWED_NAMESPACES a credential may bounce anything the worker's RBAC reaches: say so. */
function warnIfEveryNamespace(config: Config, log: Logger): void {
  if (config.allowedNamespaces !== undefined) return;
  log.warn(
    'ALLOWED_NAMESPACES is not set: directives may bounce pods in every namespace the worker can reach',
  );
}

/**
 * The process's one door to the API server: one KubeConfig (and its kept-alive connections),
 * one rate limiter, and, through `sharedWatchCaches`, one set of watch caches for every role
 * started on it. Close it after the roles (`kube.close()`).
 */
export function createKubeGateway(config: Config): KubeGateway {
  return new KubeGateway(loadKubeConfig(config), { qps: config.kubeQps, burst: config.kubeBurst });
}

/**
 * What every status write is observed by: the directive metrics and, with NOTIFY_URL or K_SINK,
 * a notification enqueued on its own queue (with `redis`, a fail-fast producer connection).
 */
function transitionObservers(
  config: Config,
  redis: Redis | undefined,
  log: Logger,
): { options: StatusWriterOptions; notifier: Notifier | undefined } {
  const notifier =
    config.notify && redis
      ? new Notifier(
          { connection: redis, prefix: config.queuePrefix },
          log.child({ component: 'notify' }),
        )
      : undefined;
  return {
    notifier,
    options: {
      onTransition: (written) => {
        observeTransition(written);
        notifier?.onTransition(written);
      },
    },
  };
}

export interface ServeRole extends Role {
  app: FastifyInstance;
  /** The api's directive watch cache (answers events that carry a version). */
  directives: DirectiveCache;
  queue: Queue;
  /** The producer connection (fail-fast), for callers that inspect Redis directly. */
  redis: Redis;
  url: string;
}

/** The HTTP role: builds the app on the real parts and listens. */
export async function startServe(
  config: Config,
  log: Logger,
  kube: KubeGateway,
): Promise<ServeRole> {
  const redis: Redis = createProducerConnection(config.redis);
  reportOutages(redis, log, config.redis, 'api');
  warnIfEveryNamespace(config, log);
  if (!(await readyOrTimeout(redis, 5000)))
    log.warn(
      describeTopology(config.redis),
      'Redis is not reachable yet; events get 503 until it is',
    );
  const connection = { connection: redis, prefix: config.queuePrefix };
  const queue = new Queue(QUEUE_NAME, connection);
  const flows = new FlowProducer(connection);
  const observers = transitionObservers(config, redis, log);
  const status = new StatusWriter(kube, log.child({ component: 'status' }), observers.options);
  // Without listeners BullMQ prints each connection error with console.error.
  queue.on('error', queueErrorListener(log, 'queue'));
  flows.on('error', queueErrorListener(log, 'flow producer'));
  // Directives only, per namespace on first use: events that carry a version are answered from it.
  const caches = sharedWatchCaches(kube, log);
  const app = await buildApp({
    config,
    log,
    kube,
    redis,
    queue,
    flows,
    status,
    directives: caches.directives,
  });
  const url = await app.listen({ port: config.port, host: config.host });
  log.info({ url }, 'pod-bouncer is listening');
  return {
    app,
    directives: caches.directives,
    queue,
    redis,
    url,
    async close(): Promise<void> {
      await app.close();
      await Promise.allSettled([
        queue.close(),
        flows.close(),
        caches.close(),
        observers.notifier?.close(),
      ]);
      redis.disconnect();
    },
  };
}

export interface WorkRole extends Role {
  worker: Worker;
  /** The worker's watch-driven wake-ups (counted, for tests and benchmarks). */
  wakeups: Wakeups;
}

/** The worker role: runs selector jobs until closed; close waits for in-flight steps. */
export function startWork(config: Config, log: Logger, kube: KubeGateway): WorkRole {
  const redis = createWorkerConnection(config.redis);
  reportOutages(redis, log, config.redis, 'worker');
  warnIfEveryNamespace(config, log);
  const workflowLog = log.child({ component: 'workflow' });
  const caches = sharedWatchCaches(kube, log);
  const wakeups = new Wakeups(caches.view, workflowLog);
  // Notifications are enqueued fail-fast: a Redis outage drops the enqueue, never holds a step.
  const producer = config.notify ? createProducerConnection(config.redis) : undefined;
  producer?.on('error', (error) => log.debug({ err: error }, 'producer Redis connection error'));
  const observers = transitionObservers(config, producer, log);
  const notifyQueue = { connection: redis, prefix: config.queuePrefix };
  const delivery = config.notify
    ? startNotifyWorker(config.notify, notifyQueue, log.child({ component: 'notify' }))
    : undefined;
  const worker = startWorker(
    {
      kube,
      status: new StatusReporter(new StatusWriter(kube, workflowLog, observers.options)),
      aborts: new AbortFlags(redis, config.queuePrefix),
      log: workflowLog,
      directives: caches.directives,
      view: caches.view,
      wakeups,
      settings: {
        pollIntervalMs: config.pollIntervalMs,
        readinessTimeoutSeconds: config.readinessTimeoutSeconds,
        rootCertSyncTimeoutSeconds: config.rootCertSyncTimeoutSeconds,
        bounceMode: config.bounceMode,
        ...(config.allowedNamespaces ? { allowedNamespaces: config.allowedNamespaces } : {}),
        defaultMaxUnavailable: config.defaultMaxUnavailable,
      },
      latestRun: (uid) => latestRun(redis, config.queuePrefix, uid),
    },
    {
      connection: redis,
      prefix: config.queuePrefix,
      concurrency: config.workerConcurrency,
      lockMs: config.jobLockMs,
    },
  );
  log.info(
    { concurrency: config.workerConcurrency, queue: QUEUE_NAME, prefix: config.queuePrefix },
    'worker started',
  );
  return {
    worker,
    wakeups,
    async close(): Promise<void> {
      await worker.close();
      await Promise.allSettled([delivery?.close(), observers.notifier?.close()]);
      wakeups.close();
      await caches.close();
      producer?.disconnect();
      redis.disconnect();
    },
  };
}
