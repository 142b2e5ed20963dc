import { Queue, type Worker } from 'bullmq';
import type { Config } from '../config.js';
import type { KubeGateway } from '../kube/gateway.js';
import { sharedWatchCaches, watchSettingsFor } from '../kube/watch-caches.js';
import { judgeOf } from '../gates/judge.js';
import { startController, type ControllerRole } from '../controller/start.js';
import { startDirectiveSweep } from '../metrics/directive-series.js';
import type { Logger } from '../logger.js';
import { createProducerConnection, createWorkerConnection } from '../queue/connection.js';
import { DeletedDirectives } from '../queue/deleted-directives.js';
import { FailedRunSweeper } from '../queue/failed-runs.js';
import { InlineApplies } from '../queue/inline-applies.js';
import { reclaimDirective } from '../queue/reclaim.js';
import { unlessNotFound } from '../kube/not-found.js';
import type { Redis } from 'ioredis';
import { QUEUE_NAME } from '../queue/names.js';
import { queueErrorListener, reportOutages } from '../queue/redis-watch.js';
import { latestRun } from '../queue/runs.js';
import { runBudgetWait } from '../queue/run-claims.js';
import { Notifier, startNotifyWorker } from '../notify/notifier.js';
import { StatusReporter } from '../status/reporter.js';
import { StatusWriter } from '../status/writer.js';
import { BounceLease } from '../workflow/bounce-lease.js';
import { SentPods } from '../workflow/sent-pods.js';
import { AbortFlags } from '../workflow/run-control.js';
import { promoteDelayed, retryFailed } from '../workflow/promote.js';
import { SelectorSlots } from '../workflow/selector-slots.js';
import { NamespaceTurns } from '../queue/namespace-turns.js';
import { Wakeups } from '../workflow/wakeups.js';
import { startWorker } from '../workflow/worker.js';
import { transitionObservers, warnIfEveryNamespace, type Role } from './role.js';

export interface WorkRole extends Role {
  worker: Worker;
  /** The worker's watch-driven wake-ups (counted, for tests and benchmarks). */
  wakeups: Wakeups;
  /** Removes failed runs' jobs once they outlive RETENTION_DAYS. */
  failedRuns: FailedRunSweeper;
  /** WATCH_DIRECTIVES=true: the directives watched and started without an event. */
  controller: ControllerRole | undefined;
}

/**
 * The directives this worker sees deleted (its directive watches, its jobs that end because their
 * directive is gone, the controller's watches) have their Redis keys reclaimed (ADR 0023).
 */
function reclaimDeleted(
  config: Config,
  log: Logger,
  { kube, redis, queue }: { kube: KubeGateway; redis: Redis; queue: Queue },
): DeletedDirectives {
  return new DeletedDirectives({
    uidNow: async (ref) => (await unlessNotFound(kube.getDirective(ref)))?.metadata.uid,
    reclaim: (ref) => reclaimDirective(redis, queue, config.queuePrefix, ref),
    log: log.child({ component: 'retention' }),
  });
}

/** The worker role: runs selector jobs until closed; close waits for in-flight steps. */
export function startWork(config: Config, log: Logger, kube: KubeGateway): WorkRole {
  const redis = createWorkerConnection(config.redis);
  reportOutages(redis, log, config.redis, 'worker');
  warnIfEveryNamespace(config, log);
  const workflowLog = log.child({ component: 'workflow' });
  const caches = sharedWatchCaches(kube, log, watchSettingsFor(config));
  const wakeups = new Wakeups(caches.view, workflowLog);
  // Notifications are enqueued fail-fast: a Redis outage drops the enqueue, never holds a step.
  const producer = config.notify ? createProducerConnection(config.redis) : undefined;
  producer?.on('error', (error) => log.debug({ err: error }, 'producer Redis connection error'));
  const notifier = producer
    ? new Notifier(
        { connection: producer, prefix: config.queuePrefix },
        log.child({ component: 'notify' }),
      )
    : undefined;
  const notifyQueue = { connection: redis, prefix: config.queuePrefix };
  const delivery = config.notify
    ? startNotifyWorker(config.notify, notifyQueue, log.child({ component: 'notify' }))
    : undefined;
  const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: config.queuePrefix });
  queue.on('error', queueErrorListener(log, 'queue'));
  const worker = startWorker(
    {
      kube,
      status: new StatusReporter(
        new StatusWriter(kube, workflowLog, transitionObservers(notifier)),
      ),
      aborts: new AbortFlags(redis, config.queuePrefix),
      lease: new BounceLease(redis, config.queuePrefix),
      sent: new SentPods(
        redis,
        config.queuePrefix,
        config.readinessTimeoutSeconds * 1000,
        config.retentionDays * 86_400_000,
      ),
      slots: new SelectorSlots(redis, config.queuePrefix, config.retentionDays * 86_400_000),
      promote: (ids) => promoteDelayed(queue, ids),
      turns: new NamespaceTurns(redis, config.queuePrefix),
      retryFailed: (ids) => retryFailed(queue, ids),
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
        defaultSoakSeconds: config.defaultSoakSeconds,
        installationGates: config.gates.installation,
        gateIntervalSeconds: config.gates.intervalSeconds,
        gateTimeoutSeconds: config.gates.timeoutSeconds,
        watchDirectives: config.watchDirectives,
      },
      gates: judgeOf(config.gates),
      latestRun: (uid) => latestRun(redis, config.queuePrefix, uid),
      runBudgetWait: (directive) =>
        runBudgetWait(redis, config.queuePrefix, directive, { perHour: config.maxRunsPerHour }),
      inlineApplyHeldFor: (ref) => new InlineApplies(redis, config.queuePrefix).heldFor(ref),
    },
    {
      connection: redis,
      prefix: config.queuePrefix,
      concurrency: config.workerConcurrency,
      lockMs: config.jobLockMs,
    },
  );
  const failedRuns = new FailedRunSweeper(
    queue,
    config.retentionDays * 86_400_000,
    log.child({ component: 'retention' }),
  );
  failedRuns.start();
  const deletions = reclaimDeleted(config, log, { kube, redis, queue });
  caches.directives.onDeleted((directive) => deletions.deleted(directive.metadata));
  worker.on('completed', (job, result) => {
    if (result.outcome === 'directive-deleted') deletions.deleted(job.data.directive);
  });
  const controller = config.watchDirectives
    ? startController(config, log.child({ component: 'controller' }), {
        kube,
        caches,
        deleted: (directive) => deletions.deleted(directive.metadata),
        status: new StatusWriter(
          kube,
          log.child({ component: 'status' }),
          transitionObservers(notifier),
        ),
      })
    : undefined;
  const stopSeriesSweep = startDirectiveSweep((ref) => caches.directives.exists(ref));
  log.info(
    { concurrency: config.workerConcurrency, queue: QUEUE_NAME, prefix: config.queuePrefix },
    'worker started',
  );
  return {
    worker,
    wakeups,
    failedRuns,
    controller,
    async close(): Promise<void> {
      stopSeriesSweep();
      await controller?.close();
      deletions.close();
      failedRuns.close();
      await worker.close();
      await queue.close();
      await Promise.allSettled([delivery?.close(), notifier?.close()]);
      wakeups.close();
      await caches.close();
      producer?.disconnect();
      redis.disconnect();
    },
  };
}
