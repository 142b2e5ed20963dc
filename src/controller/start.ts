import type { Config } from '../config.js';
import type { Directive } from '../directive/types.js';
import type { IngestDeps } from '../ingest/deps.js';
import { openIngest } from '../ingest/ingest-parts.js';
import { groupCommit } from '../queue/durable.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { WatchCaches } from '../kube/watch-caches.js';
import type { Logger } from '../logger.js';
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
  const parts = openIngest(config, log);
  const { redis, queues, followUps } = parts;
  redis.on('error', (error) => log.debug({ err: error }, 'controller Redis connection error'));
  const base: IngestDeps = {
    ...parts,
    kube,
    status,
    directives: caches.directives,
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
