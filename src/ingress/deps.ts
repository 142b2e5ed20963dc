import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { GateJudge } from '../gates/judge.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { TokenReviewer } from '../kube/token-review.js';
import type { DirectiveCache } from '../kube/informer-directives.js';
import type { Logger } from '../logger.js';
import type { ApiQueues } from '../queue/api-queues.js';
import type { GroupCommit } from '../queue/group-commit.js';
import type { RecentRuns } from '../queue/recent-runs.js';
import type { StatusWriter } from '../status/writer.js';
import type { FollowUps } from '../status/follow-ups.js';

/** The API-server calls the api makes: the gateway's (`serve` hands them over once it is loaded). */
export type ApiKube = Pick<
  KubeGateway,
  | 'ping'
  | 'getDirective'
  | 'applyDirective'
  | 'setPaused'
  | 'listNamespacePods'
  | 'rolloutOwnerOf'
  | 'readSecretKey'
  | 'readConfigMapKey'
  | 'recordEvent'
>;

/** Everything the HTTP layer talks to; tests build it from the real parts. */
export interface AppDeps {
  config: Config;
  log: Logger;
  kube: ApiKube;
  /** Producer connection: fails fast when Redis is down. */
  redis: Redis;
  /** The BullMQ queue and flow producer, made on first use. */
  queues: Pick<ApiQueues, 'queue' | 'flows'>;
  status: StatusWriter;
  /** Watch cache of directives: answers events that carry a version it is at least as fresh as. */
  directives?: Pick<DirectiveCache, 'peek' | 'offer'>;
  /**
   * Starts loading the Kubernetes side when it is loaded on first use (`serve`); /readyz calls it
   * once its answer is out, so that a probe neither waits for the load nor is held by it.
   */
  startKube?: () => void;
  /** TokenReviews on their own budget; required with WEBHOOK_TOKENREVIEW_AUDIENCE. */
  tokenReviewer?: Pick<TokenReviewer, 'review' | 'issuerKeys'>;
  /** Writes that follow an answer (PENDING); `buildApp` makes one and waits for it on close. */
  followUps?: FollowUps;
  /** Runs this process saw accepted, to answer their repeats without Redis; `buildApp` makes one. */
  recentRuns?: RecentRuns;
  /** Verdicts of gates for dry runs, shared by the process's requests; `buildApp` makes one. */
  gates?: Pick<GateJudge, 'verdicts'>;
  /** Enqueues runs by group commit; `buildApp` makes one. */
  runs?: GroupCommit;
}
