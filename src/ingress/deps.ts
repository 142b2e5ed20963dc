import type { GateJudge } from '../gates/judge.js';
import type { IngestDeps } from '../ingest/deps.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { TokenReviewer } from '../kube/token-review.js';

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

/** Everything the HTTP layer talks to: what an ingest does, and the api's own; tests build it from the real parts. */
export interface AppDeps extends IngestDeps {
  kube: ApiKube;
  /**
   * Starts loading the Kubernetes side when it is loaded on first use (`serve`); /readyz calls it
   * once its answer is out, so that a probe neither waits for the load nor is held by it.
   */
  startKube?: () => void;
  /** TokenReviews on their own budget; required with WEBHOOK_TOKENREVIEW_AUDIENCE. */
  tokenReviewer?: Pick<TokenReviewer, 'review' | 'issuerKeys'>;
  /** Verdicts of gates for dry runs, shared by the process's requests; `buildApp` makes one. */
  gates?: Pick<GateJudge, 'verdicts'>;
}
