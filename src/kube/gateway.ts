import { VersionApi, type KubeConfig } from '@kubernetes/client-node';
import type {
  Directive,
  DirectiveManifest,
  DirectiveStatus,
  ObjectRef,
} from '../directive/types.js';
import type { KubeVerb } from '../metrics/kube.js';
import { ConnectionReusingKubeConfig } from './client.js';
import {
  DirectiveClient,
  type ApplyOptions,
  type DirectiveEvent,
  type DirectiveOperations,
} from './directive-operations.js';
import { KeyReadClient, type KeyReads } from './key-reads.js';
import { OwnerGateway, type RolloutOwner } from './owners.js';
import {
  PodClient,
  type DeleteOutcome,
  type EvictOutcome,
  type LabelledPod,
  type PodOperations,
} from './pod-operations.js';
import type { PodInfo } from './pods.js';
import { KubeRequests } from './requests.js';
import type { RetryPolicy } from './retry.js';

export type { DeleteOutcome, EvictOutcome } from './pod-operations.js';
export type { DirectiveEvent } from './directive-operations.js';

/**
 * The only door to the Kubernetes API, one per process. Every call is rate limited, counted and
 * its failures are mapped to the project's errors (404 → NotFoundError, 409 → ConflictError,
 * 429/5xx/network → TransientError, anything else → PermanentError); transient failures are
 * retried a few times inside the call before the caller sees them (`requests.ts`). The calls
 * themselves live with their concern: pods, directives and ConfigMap/Secret keys. TokenReviews
 * keep a budget of their own (`token-review.ts`), so a flood of unknown tokens cannot use this one.
 */
export class KubeGateway implements PodOperations, DirectiveOperations, KeyReads {
  private readonly version: VersionApi;
  private readonly requests: KubeRequests;
  private readonly pods: PodClient;
  private readonly directives: DirectiveClient;
  private readonly keys: KeyReadClient;
  /** The apps/v1 owners of pods, for `bounceMode: rollout` (src/kube/owners.ts). */
  readonly owners: OwnerGateway;

  constructor(
    /** The process's API access; watches use the same one, so connections are shared. */
    readonly kubeConfig: KubeConfig,
    limits: { qps: number; burst: number },
    retry: Partial<RetryPolicy> = {},
  ) {
    this.requests = new KubeRequests(limits, retry);
    this.version = kubeConfig.makeApiClient(VersionApi);
    this.pods = new PodClient(kubeConfig, this.requests);
    this.directives = new DirectiveClient(kubeConfig, this.requests);
    this.keys = new KeyReadClient(kubeConfig, this.requests);
    this.owners = new OwnerGateway(this);
  }

  /** A request of another API group (src/kube/owners.ts), through this limiter and error mapping. */
  send<T>(verb: KubeVerb, what: string, request: (config: KubeConfig) => Promise<T>): Promise<T> {
    return this.requests.call({ verb, what }, () => request(this.kubeConfig));
  }

  /**
   * Cheap reachability probe for /readyz: one try, never queued behind this gateway's other
   * requests (`KubeRequests.probe`); its callers send one every few seconds at most.
   */
  async ping(): Promise<void> {
    const what = 'read API server version';
    await this.requests.probe({ verb: 'get', what }, () => this.version.getCode());
  }

  /** Closes the kept-alive connections to the API server (last, on shutdown). */
  async close(): Promise<void> {
    if (this.kubeConfig instanceof ConnectionReusingKubeConfig) {
      await this.kubeConfig.closeConnections();
    }
  }

  getDirective(ref: ObjectRef): Promise<Directive> {
    return this.directives.getDirective(ref);
  }

  applyDirective(
    manifest: DirectiveManifest,
    fieldManager: string,
    options?: ApplyOptions,
  ): Promise<Directive> {
    return this.directives.applyDirective(manifest, fieldManager, options);
  }

  patchDirectiveStatus(directive: Directive, status: DirectiveStatus): Promise<Directive> {
    return this.directives.patchDirectiveStatus(directive, status);
  }

  setPaused(ref: ObjectRef, paused: boolean): Promise<Directive> {
    return this.directives.setPaused(ref, paused);
  }

  observeDirectiveWrites(observer: (directive: Directive) => void): () => void {
    return this.directives.observeDirectiveWrites(observer);
  }

  recordEvent(directive: Directive, event: DirectiveEvent): Promise<void> {
    return this.directives.recordEvent(directive, event);
  }

  listPods(namespace: string, labels: Record<string, string>): Promise<PodInfo[]> {
    return this.pods.listPods(namespace, labels);
  }

  listNamespacePods(namespace: string): Promise<LabelledPod[]> {
    return this.pods.listNamespacePods(namespace);
  }

  getPod(namespace: string, name: string): Promise<PodInfo | undefined> {
    return this.pods.getPod(namespace, name);
  }

  deletePod(namespace: string, name: string, uid: string): Promise<DeleteOutcome> {
    return this.pods.deletePod(namespace, name, uid);
  }

  evictPod(namespace: string, name: string, uid: string): Promise<EvictOutcome> {
    return this.pods.evictPod(namespace, name, uid);
  }

  /** What `kubectl rollout restart` would restart for a pod's controller (`OwnerGateway.ownerOf`). */
  rolloutOwnerOf(
    namespace: string,
    controller: { kind: string; name: string },
  ): Promise<RolloutOwner | undefined> {
    return this.owners.ownerOf(namespace, controller);
  }

  readConfigMapKey(ref: ObjectRef, key: string): Promise<string | undefined> {
    return this.keys.readConfigMapKey(ref, key);
  }

  readSecretKey(ref: ObjectRef, key: string): Promise<Buffer | undefined> {
    return this.keys.readSecretKey(ref, key);
  }
}
