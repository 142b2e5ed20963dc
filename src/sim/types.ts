// The simulator's public contract; other modules and tests code against these names.
import type { DirectiveObject, KubeObject, PodObject } from './objects.js';

export interface SimulatorOptions {
  /** Listen port; default 0 (ephemeral). */
  port?: number;
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** CRD used for validation; default charts/pod-bouncer/crds/podbouncedirectives.yaml under the package root. */
  crdPath?: string;
  /** Seed of the fault-injection RNG, so a fault sequence can be replayed. */
  seed?: number;
  /** Watch events kept for resuming from a resourceVersion; older ones answer 410 Expired. Default 1000. */
  watchHistorySize?: number;
  /** Period of BOOKMARK events on watches that ask for them. Default 15000. */
  bookmarkIntervalMs?: number;
  /** Simulated nodes (sim-node-1..N); a DaemonSet runs one pod on each. Default 3. */
  nodes?: number;
  /** Readiness delay of the pods of workloads created through the API; null = never. Default 0. */
  readinessDelayMs?: number | null;
}

/**
 * A workload made of apps/v1 objects. 'ReplicaSet' and 'Deployment' both create a Deployment
 * whose ReplicaSet owns the pods; 'DaemonSet' runs one pod per simulated node (replicas ignored).
 */
export interface WorkloadSpec {
  namespace: string;
  name: string;
  kind: 'ReplicaSet' | 'Deployment' | 'StatefulSet' | 'DaemonSet';
  labels: Record<string, string>;
  replicas: number;
  /** Delay before a replacement pod becomes Ready; null = never. Default 0. Initial pods start Ready. */
  readinessDelayMs?: number | null;
  /** How long a deleted pod stays Terminating before it disappears. Default 0. */
  terminationGraceMs?: number;
  /**
   * Deployment: 'RollingUpdate' (default) or 'Recreate'. StatefulSet and DaemonSet:
   * 'RollingUpdate' (default) or 'OnDelete'.
   */
  strategy?: 'RollingUpdate' | 'Recreate' | 'OnDelete';
  /** Deployment RollingUpdate (default 25%). */
  maxSurge?: number | string;
  /** Deployment RollingUpdate (default 25%), DaemonSet RollingUpdate (default 1). */
  maxUnavailable?: number | string;
  /** StatefulSet RollingUpdate: ordinals below it are not updated. Default 0. */
  partition?: number;
  /**
   * StatefulSet: 'Parallel' (the default here) recreates every missing pod at once; 'OrderedReady'
   * (a cluster's default) creates in ordinal order, each once the previous one is Ready.
   */
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
}

export type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'DaemonSet';

/** What `kubectl rollout status` would say of a workload now. */
export interface WorkloadRollout {
  done: boolean;
  message: string;
  /** Set when kubectl would fail (an OnDelete strategy, a progress deadline exceeded). */
  error?: string;
}

export interface FaultSpec {
  /** Share (0..1) of matching requests that fail. */
  errorRate?: number;
  /**
   * Status of injected failures; default 500. 429 carries Retry-After; 409 is the API server's
   * stale-resourceVersion conflict ("the object has been modified").
   */
  status?: 500 | 503 | 429 | 409;
  retryAfterSeconds?: number;
  /** Latency added to matching requests (watches: before the stream starts). */
  latencyMs?: number;
  /** Only these HTTP methods match (default all). */
  methods?: string[];
  /** Only these resources or subresources match, e.g. 'pods', 'eviction', 'status' (default all). */
  resources?: string[];
  /**
   * Fail after the request took effect instead of before: the change is made but the client
   * gets the error, as when a response is lost. Default false.
   */
  afterEffect?: boolean;
  /** At most this many failures are injected, then none (default: no bound). */
  limit?: number;
}

export interface RequestLogEntry {
  at: number;
  method: string;
  /** URL path without the query string. */
  path: string;
  /** Raw query string without '?', '' when none. */
  query: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  watch: boolean;
  status: number;
  /** The kubeconfig user (`kubeconfigYaml(user)`) that sent it, when its token was one. */
  user?: string;
}

export interface TokenUser {
  username: string;
  uid?: string;
  groups?: string[];
  audiences?: string[];
  /** Answered as status.audiences whatever the review asks (an authenticator that ignores them). */
  reviewAudiences?: string[];
}

export interface NewPod {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  ready?: boolean;
  createdAt?: Date;
  /**
   * The pod's controller (an ownerReference with `controller: true`), for owners the simulator
   * does not run, such as a Job: nothing recreates the pod when it goes.
   */
  controller?: { apiVersion: string; kind: string; name: string; uid: string };
}

export interface PodDisruptionBudgetSpec {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  minAvailable?: number;
  maxUnavailable?: number;
}

export interface PodDeletion {
  at: number;
  namespace: string;
  name: string;
  uid: string;
}

export interface Simulator {
  readonly url: string;
  /**
   * Kubeconfig for this simulator: insecure-skip-tls-verify, a token user (sim-admin unless named;
   * a name starts with `sim-`), context 'sim' current. The request log names the user.
   */
  kubeconfigYaml(user?: string): string;
  writeKubeconfig(path: string, user?: string): Promise<void>;
  /** Ends watches, clears timers and closes the server. Safe to call twice. */
  close(): Promise<void>;

  addWorkload(spec: WorkloadSpec): void;
  /** The stored Deployment, ReplicaSet, StatefulSet or DaemonSet, status included. */
  getWorkload(kind: WorkloadKind, namespace: string, name: string): KubeObject | undefined;
  /** The workload's rollout state by the rules of `kubectl rollout status`. */
  workloadRollout(kind: WorkloadKind, namespace: string, name: string): WorkloadRollout;
  /** Changes the workload's pod template the way `kubectl rollout restart` does. */
  restartWorkload(kind: WorkloadKind, namespace: string, name: string, at?: string): void;
  /** The simulated nodes' names. */
  nodeNames(): string[];
  setReadinessDelay(namespace: string, workload: string, delayMs: number | null): void;
  /** A pod's readiness probe starts failing (a crash loop): not Ready until it is replaced. */
  failReadiness(namespace: string, pod: string): void;
  addPod(pod: NewPod): PodObject;
  /** Live pods, terminating ones included, optionally filtered by label equality. */
  listPods(namespace: string, labels?: Record<string, string>): PodObject[];

  /** Effective deletions per pod uid (a correct client never exceeds 1). */
  deletionsByUid(): Map<string, number>;
  /** Every DELETE or eviction that resolved to a pod, per uid, rejected ones included. */
  deleteRequestsByUid(): Map<string, number>;
  deletedPods(): PodDeletion[];
  onPodDeleted(listener: (p: Omit<PodDeletion, 'at'>) => void): () => void;

  putConfigMap(namespace: string, name: string, data: Record<string, string>): void;
  putSecret(namespace: string, name: string, data: Record<string, string>): void;
  addPodDisruptionBudget(pdb: PodDisruptionBudgetSpec): void;

  applyDirective(obj: object): DirectiveObject;
  getDirective(namespace: string, name: string): DirectiveObject | undefined;
  /** The directive's `status.state`, read without copying the object (cheap enough to poll). */
  directiveState(namespace: string, name: string): string | undefined;
  deleteDirective(namespace: string, name: string): void;

  registerToken(token: string, user: TokenUser): void;

  requests(): RequestLogEntry[];
  /** TCP connections accepted since the start (clients that keep connections alive open few). */
  connectionsAccepted(): number;
  resetRequests(): void;
  events(): object[];
  setFaults(f: FaultSpec | null): void;
  dropWatches(): void;
  /**
   * Every open watch stream goes silent for good (no events, no bookmarks) while its connection
   * stays open, as a half-open connection does; watches opened later are not affected.
   */
  stallWatches(): void;
  /** Holds back every watch event until the returned function is called (watch lag). */
  holdWatchEvents(): () => void;
  /** Runs action after delayMs unless the simulator closes first (for fixtures such as demoMesh). */
  schedule(delayMs: number, action: () => void): void;
}
