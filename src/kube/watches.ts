import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Pod,
} from '@kubernetes/client-node';
import type { PodJson } from './pods.js';
import {
  DIRECTIVE_GROUP,
  DIRECTIVE_PLURAL,
  DIRECTIVE_VERSION,
  type Directive,
} from '../directive/types.js';
import type { Logger } from '../logger.js';
import { Informer, type InformerSource } from './informer.js';
import { NamespaceSlices, type WatchedCollection } from './namespace-slices.js';
import { sendRaw } from './raw-request.js';

export type WatchedKind = 'pods' | 'configmaps' | 'directives';

/** The "namespace" of a cluster-wide watch (controller mode without ALLOWED_NAMESPACES). */
export const EVERY_NAMESPACE = '';

export interface WatchSettings {
  /**
   * How long an open watch may say nothing before it is listed again (shorter once the server's
   * bookmarks have shown their period; see `Watchdog`). client-node 2.0 itself gives up on a
   * stream after 30 s without data and resumes from the last resourceVersion.
   */
  silenceLimitMs: number;
  /**
   * Pod watches of this many namespaces at most, then one cluster-wide pod watch for every further
   * namespace; undefined: always per namespace (when only some namespaces are allowed, a
   * cluster-wide watch would cache pods of namespaces pod-bouncer must not touch).
   */
  clusterWidePodsAfter?: number;
}

export const DEFAULT_WATCH_SETTINGS: WatchSettings = Object.freeze({ silenceLimitMs: 45_000 });

/**
 * Namespaces with a pod watch of their own before the cluster-wide one is used instead. Per
 * namespace, a watch costs a LIST and a stream each, and caches only the pods that matter; one
 * cluster-wide watch costs one LIST and one stream but caches every pod of the cluster. A mesh
 * directive's hundreds of namespaces are where the second wins (bench `mesh` measures both).
 */
export const CLUSTER_WIDE_PODS_AFTER = 16;

/** The key of the cluster-wide pod watch among the informers. */
const CLUSTER_PODS = 'pods/*';

interface KindObjects {
  pods: V1Pod;
  configmaps: V1ConfigMap;
  directives: Directive;
}

/**
 * The process's shared watches: at most one list+watch per (kind, namespace), started on first
 * use and kept until `close()`. Every job of a worker (and every request of the api) reads the
 * same caches, so the API server sees a handful of watches per process, not one per job.
 *
 * Needs `list` and `watch` on pods, configmaps and podbouncedirectives in the namespaces it is
 * asked about (the chart's ClusterRole grants them).
 */
export class KubeWatches {
  private readonly informers = new Map<string, Informer<unknown>>();
  /** The cluster-wide pod watch by namespace, once the count of namespaces called for it. */
  private clusterPods: NamespaceSlices<V1Pod> | undefined;
  private podNamespaces = 0;
  private closed = false;
  private readonly settings: WatchSettings;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly log: Logger,
    settings: Partial<WatchSettings> = {},
  ) {
    this.settings = { ...DEFAULT_WATCH_SETTINGS, ...settings };
  }

  /** The shared informer of a kind in a namespace, started (not necessarily synced yet). */
  informer<K extends WatchedKind>(kind: K, namespace: string): WatchedCollection<KindObjects[K]> {
    const key = `${kind}/${namespace}`;
    const existing = this.informers.get(key) as Informer<KindObjects[K]> | undefined;
    if (existing !== undefined) return existing;
    if (kind === 'pods' && this.podsClusterWide()) {
      return this.clusterPodSlices().slice(namespace) as WatchedCollection<KindObjects[K]>;
    }
    if (kind === 'pods') this.podNamespaces += 1;
    return this.begin(key, this.create(kind, namespace));
  }

  /** How pods are watched now: namespaces with a watch of their own, and whether cluster-wide. */
  podWatchMode(): { namespaces: number; clusterWide: boolean } {
    return { namespaces: this.podNamespaces, clusterWide: this.clusterPods !== undefined };
  }

  private begin<T>(key: string, informer: Informer<T>): Informer<T> {
    this.informers.set(key, informer as Informer<unknown>);
    if (!this.closed) void informer.start();
    return informer;
  }

  private podsClusterWide(): boolean {
    if (this.clusterPods !== undefined) return true;
    const after = this.settings.clusterWidePodsAfter;
    return after !== undefined && this.podNamespaces >= after;
  }

  private clusterPodSlices(): NamespaceSlices<V1Pod> {
    if (this.clusterPods === undefined) {
      this.log.info(
        { namespaces: this.podNamespaces },
        'pods of further namespaces watched cluster-wide',
      );
      const informer = this.begin(CLUSTER_PODS, this.create('pods', undefined));
      this.clusterPods = new NamespaceSlices(informer);
    }
    return this.clusterPods;
  }

  /** The informer only if it exists and is synced: a cache that may answer for the API. */
  synced<K extends WatchedKind>(
    kind: K,
    namespace: string,
  ): WatchedCollection<KindObjects[K]> | undefined {
    const informer = this.informer(kind, namespace);
    return informer.isSynced() ? informer : undefined;
  }

  /** Resolves once the informer has listed (or failed to). */
  async ready(kind: WatchedKind, namespace: string): Promise<boolean> {
    const informer = this.informer(kind, namespace);
    await informer.start();
    return informer.isSynced();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.informers.values()].map((informer) => informer.stop()));
    this.informers.clear();
    this.clusterPods = undefined;
  }

  /** A namespace's list+watch of a kind; of every namespace when `namespace` is undefined. */
  private create<K extends WatchedKind>(
    kind: K,
    namespace: string | undefined,
  ): Informer<KindObjects[K]> {
    const log = this.log.child({ watch: kind, namespace: namespace ?? '*' });
    return new Informer<KindObjects[K]>(
      this.kubeConfig,
      this.source(kind, namespace),
      log,
      this.settings.silenceLimitMs,
    );
  }

  private source(kind: WatchedKind, namespace: string | undefined): InformerSource {
    const scope =
      namespace === undefined || namespace === EVERY_NAMESPACE ? '' : `/namespaces/${namespace}`;
    const path =
      kind === 'directives'
        ? `/apis/${DIRECTIVE_GROUP}/${DIRECTIVE_VERSION}${scope}/${DIRECTIVE_PLURAL}`
        : `/api/v1${scope}/${kind}`;
    // The list as the API server sends it (plain JSON, as watch events are): no model classes.
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> =>
      JSON.parse(
        await sendRaw(this.kubeConfig, { method: 'GET', path }),
      ) as KubernetesListObject<KubernetesObject>;
    return { kind, path, list, ...(kind === 'pods' ? { trim: trimPod } : {}) };
  }
}

/**
 * A cached pod keeps only what the workflow reads (identity, labels, timestamps, the controller
 * reference, the Ready condition): a full pod is several KB, and a worker may watch namespaces of
 * thousands of pods. A new small object, so that the parsed pod dies young (cheap to collect)
 * instead of being kept, trimmed in place, until the pod's next change. ListWatch itself needs
 * only name, namespace and resourceVersion.
 */
function trimPod(object: KubernetesObject): KubernetesObject {
  const pod = object as PodJson & { metadata?: { resourceVersion?: string } };
  const metadata = pod.metadata ?? {};
  // Only the controller reference is kept: batches and rollouts ask who owns a pod.
  const controller = metadata.ownerReferences?.find((reference) => reference.controller === true);
  const ready = pod.status?.conditions?.find((condition) => condition.type === 'Ready');
  const trimmed: PodJson & { metadata: { resourceVersion?: string } } = {
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      uid: metadata.uid,
      resourceVersion: metadata.resourceVersion,
      labels: metadata.labels,
      creationTimestamp: metadata.creationTimestamp,
      deletionTimestamp: metadata.deletionTimestamp,
    },
    // Of the Ready condition and the controller reference, only what the workflow reads: their
    // timestamps, uids and API versions are most of a cached pod's bytes.
    status: { conditions: ready === undefined ? [] : [{ type: 'Ready', status: ready.status }] },
  };
  if (controller !== undefined) {
    const { kind, name } = controller;
    trimmed.metadata.ownerReferences = [{ kind, name, controller: true }];
  }
  return trimmed as KubernetesObject;
}
