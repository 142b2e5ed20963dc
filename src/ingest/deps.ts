import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { DirectiveCache } from '../kube/informer-directives.js';
import type { Logger } from '../logger.js';
import type { ApiQueues } from '../queue/api-queues.js';
import type { GroupCommit } from '../queue/group-commit.js';
import type { RecentRuns } from '../queue/recent-runs.js';
import type { StatusWriter } from '../status/writer.js';
import type { FollowUps } from '../status/follow-ups.js';

/** The API-server calls an ingest makes: the directive read or applied, a Warning recorded. */
export type IngestKube = Pick<KubeGateway, 'getDirective' | 'applyDirective' | 'recordEvent'>;

/** Everything an ingest talks to (the api's, or the controller's); tests build it from the real parts. */
export interface IngestDeps {
  config: Config;
  log: Logger;
  kube: IngestKube;
  /** Producer connection: fails fast when Redis is down. */
  redis: Redis;
  /** The BullMQ queue and flow producer, made on first use. */
  queues: Pick<ApiQueues, 'queue' | 'flows'>;
  status: StatusWriter;
  /** Watch cache of directives: answers events that carry a version it is at least as fresh as. */
  directives?: Pick<DirectiveCache, 'peek' | 'offer'>;
  /** Writes that follow an answer (PENDING); `buildApp` makes one and waits for it on close. */
  followUps?: FollowUps;
  /** Runs this process saw accepted, to answer their repeats without Redis; `buildApp` makes one. */
  recentRuns?: RecentRuns;
  /** Enqueues runs by group commit; `buildApp` makes one. */
  runs?: GroupCommit;
}
