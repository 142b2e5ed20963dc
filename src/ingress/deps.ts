import type { FlowProducer, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { TokenReviewer } from '../kube/token-review.js';
import type { DirectiveCache } from '../kube/informer-directives.js';
import type { Logger } from '../logger.js';
import type { GroupCommit } from '../queue/group-commit.js';
import type { RecentRuns } from '../queue/recent-runs.js';
import type { StatusWriter } from '../status/writer.js';
import type { FollowUps } from './follow-ups.js';

/** Everything the HTTP layer talks to; tests build it from the real parts. */
export interface AppDeps {
  config: Config;
  log: Logger;
  kube: KubeGateway;
  /** Producer connection: fails fast when Redis is down. */
  redis: Redis;
  queue: Queue;
  flows: FlowProducer;
  status: StatusWriter;
  /** Watch cache of directives: answers events that carry a version it is at least as fresh as. */
  directives?: DirectiveCache;
  /** TokenReviews on their own budget; made from the gateway's kubeconfig when absent. */
  tokenReviewer?: TokenReviewer;
  /** Writes that follow an answer (PENDING); `buildApp` makes one and waits for it on close. */
  followUps?: FollowUps;
  /** Runs this process saw accepted, to answer their repeats without Redis; `buildApp` makes one. */
  recentRuns?: RecentRuns;
  /** Enqueues runs by group commit; `buildApp` makes one. */
  runs?: GroupCommit;
}
