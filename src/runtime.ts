import { FlowProducer, Queue, type Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import { buildApp } from './ingress/app.js';
import { loadKubeConfig } from './kube/client.js';
import { KubeGateway } from './kube/gateway.js';
import type { DirectiveCache } from './kube/informer-directives.js';
import { createWatchCaches } from './kube/watch-caches.js';
import type { Logger } from './logger.js';
import {
  createProducerConnection,
  createWorkerConnection,
  readyOrTimeout,
} from './queue/connection.js';
import { QUEUE_NAME } from './queue/names.js';
import { describeTopology } from './queue/redis-topology.js';
import { StatusReporter } from './status/reporter.js';
import { StatusWriter } from './status/writer.js';
import { AbortFlags } from './workflow/run-control.js';
import { Wakeups } from './workflow/wakeups.js';
import { startWorker } from './workflow/worker.js';

/** Something started that must be stopped in order on shutdown. */
export interface Role {
  close(): Promise<void>;
}

export function createKubeGateway(config: Config): KubeGateway {
  const kubeConfig = loadKubeConfig({
    ...(config.kubeconfig ? { kubeconfig: config.kubeconfig } : {}),
    ...(config.kubeContext ? { context: config.kubeContext } : {}),
  });
  return new KubeGateway(kubeConfig, { qps: config.kubeQps, burst: config.kubeBurst });
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
  redis.on('error', (error) => log.debug({ err: error }, 'producer Redis connection error'));
  if (!(await readyOrTimeout(redis, 5000)))
    log.warn(
      describeTopology(config.redis),
      'Redis is not reachable yet; events get 503 until it is',
    );
  const connection = { connection: redis, prefix: config.queuePrefix };
  const queue = new Queue(QUEUE_NAME, connection);
  const flows = new FlowProducer(connection);
  const status = new StatusWriter(kube, log.child({ component: 'status' }));
  // Directives only, per namespace on first use: events that carry a version are answered from it.
  const caches = createWatchCaches(config, kube, log);
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
      await Promise.allSettled([queue.close(), flows.close(), caches.close()]);
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
  redis.on('error', (error) => log.warn({ err: error }, 'worker Redis connection error'));
  const workflowLog = log.child({ component: 'workflow' });
  const caches = createWatchCaches(config, kube, log);
  const wakeups = new Wakeups(caches.view, workflowLog);
  const worker = startWorker(
    {
      kube,
      status: new StatusReporter(new StatusWriter(kube, workflowLog)),
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
        defaultMaxUnavailable: config.defaultMaxUnavailable,
      },
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
      wakeups.close();
      await caches.close();
      redis.disconnect();
    },
  };
}
