import type { Config } from '../config.js';
import type { Directive } from '../directive/types.js';
import { FollowUps } from '../status/follow-ups.js';
import type { AppDeps } from '../ingress/deps.js';
import { groupCommit } from '../queue/durable.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { WatchCaches } from '../kube/watch-caches.js';
import type { Logger } from '../logger.js';
import { ApiQueues } from '../queue/api-queues.js';
import { createProducerConnection } from '../queue/connection.js';
import { RecentRuns } from '../queue/recent-runs.js';
import type { StatusWriter } from '../status/writer.js';
import { DirectiveController } from './directive-controller.js';

export interface ControllerRole {
  controller: DirectiveController;
  close(): Promise<void>;
}

/**
 * WATCH_DIRECTIVES=true: the worker's controller, on the parts the api ingests with (a fail-fast
 * producer connection, the queue and flow producer made on first use, group commit, the PENDING
 * writes that follow an acceptance) and on the worker's own watch caches.
 */
export interface ControllerParts {
  kube: KubeGateway;
  caches: WatchCaches;
  /** Writes refusals and PENDING, with the worker's transition observers. */
  status: StatusWriter;
  /** Told of each directive seen deleted. */
  deleted?: (directive: Directive) => void;
}

export function startController(
  config: Config,
  log: Logger,
  { kube, caches, status, deleted }: ControllerParts,
): ControllerRole {
  const redis = createProducerConnection(config.redis);
  redis.on('error', (error) => log.debug({ err: error }, 'controller Redis connection error'));
  const queues = new ApiQueues({ connection: redis, prefix: config.queuePrefix }, log);
  const followUps = new FollowUps();
  const base: AppDeps = {
    config,
    log,
    kube,
    redis,
    queues,
    status,
    directives: caches.directives,
    followUps,
    recentRuns: new RecentRuns(),
  };
  const controller = new DirectiveController(
    { ...base, runs: groupCommit(base) },
    caches.watches,
    deleted,
  );
  controller.start();
  log.info({ namespaces: config.allowedNamespaces ?? 'every' }, 'watching directives');
  return {
    controller,
    async close(): Promise<void> {
      controller.close();
      await followUps.close(log);
      await queues.close();
      redis.disconnect();
    },
  };
}
