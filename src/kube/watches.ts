import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Pod,
} from '@kubernetes/client-node';
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
import { trimPod, trimReplicaSet, type ReplicaSetScale } from './watch-trims.js';

export type WatchedKind = 'pods' | 'configmaps' | 'directives' | 'replicasets';

/** Kinds watched per namespace, then cluster-wide past `clusterWidePodsAfter` namespaces. */
type WideKind = 'pods' | 'replicasets';

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
   * cluster-wide watch would cache pods of namespaces pod-bouncer must not touch). ReplicaSets
   * are watched by the same rule, counted apart.
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

interface KindObjects {
  pods: V1Pod;
  configmaps: V1ConfigMap;
  directives: Directive;
  replicasets: ReplicaSetScale;
}

/** Where each kind is listed and watched, below `/api/v1` or `/apis/<group>/<version>`. */
const COLLECTIONS: Record<WatchedKind, { prefix: string; plural: string }> = {
  pods: { prefix: '/api/v1', plural: 'pods' },
  configmaps: { prefix: '/api/v1', plural: 'configmaps' },
  directives: { prefix: `/apis/${DIRECTIVE_GROUP}/${DIRECTIVE_VERSION}`, plural: DIRECTIVE_PLURAL },
  replicasets: { prefix: '/apis/apps/v1', plural: 'replicasets' },
};

const TRIMS: Partial<Record<WatchedKind, InformerSource['trim']>> = {
  pods: trimPod,
  replicasets: trimReplicaSet,
};

/**
 * The process's shared watches: at most one list+watch per (kind, namespace), started on first
 * use and kept until `close()`. Every job of a worker (and every request of the api) reads the
 * same caches, so the API server sees a handful of watches per process, not one per job.
 *
 * Needs `list` and `watch` on pods, configmaps, replicasets and podbouncedirectives in the
 * namespaces it is asked about (the chart's ClusterRole grants them).
 */
export class KubeWatches {
  private readonly informers = new Map<string, Informer<unknown>>();
  /** A kind's cluster-wide watch by namespace, once the count of namespaces called for it. */
  private readonly clusterWide = new Map<WideKind, NamespaceSlices<KindObjects[WideKind]>>();
  /** Namespaces with a watch of their own, per kind watched cluster-wide past a count. */
  private readonly ownNamespaces = new Map<WideKind, number>();
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
    if (isWide(kind)) {
      if (this.goesClusterWide(kind)) {
        return this.clusterSlices(kind).slice(namespace) as WatchedCollection<KindObjects[K]>;
      }
      this.ownNamespaces.set(kind, (this.ownNamespaces.get(kind) ?? 0) + 1);
    }
    return this.begin(key, this.create(kind, namespace));
  }

  /** How pods are watched now: namespaces with a watch of their own, and whether cluster-wide. */
  podWatchMode(): { namespaces: number; clusterWide: boolean } {
    const namespaces = this.ownNamespaces.get('pods') ?? 0;
    return { namespaces, clusterWide: this.clusterWide.has('pods') };
  }

  private begin<T>(key: string, informer: Informer<T>): Informer<T> {
    this.informers.set(key, informer as Informer<unknown>);
    if (!this.closed) void informer.start();
    return informer;
  }

  private goesClusterWide(kind: WideKind): boolean {
    if (this.clusterWide.has(kind)) return true;
    const after = this.settings.clusterWidePodsAfter;
    return after !== undefined && (this.ownNamespaces.get(kind) ?? 0) >= after;
  }

  private clusterSlices(kind: WideKind): NamespaceSlices<KindObjects[WideKind]> {
    let slices = this.clusterWide.get(kind);
    if (slices === undefined) {
      const namespaces = this.ownNamespaces.get(kind) ?? 0;
      this.log.info({ kind, namespaces }, `${kind} of further namespaces watched cluster-wide`);
      slices = new NamespaceSlices(this.begin(`${kind}/*`, this.create(kind, undefined)));
      this.clusterWide.set(kind, slices);
    }
    return slices;
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
    this.clusterWide.clear();
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
    const { prefix, plural } = COLLECTIONS[kind];
    const path = `${prefix}${scope}/${plural}`;
    // The list as the API server sends it (plain JSON, as watch events are): no model classes.
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> =>
      JSON.parse(
        await sendRaw(this.kubeConfig, { method: 'GET', path }),
      ) as KubernetesListObject<KubernetesObject>;
    const trim = TRIMS[kind];
    return { kind, path, list, ...(trim === undefined ? {} : { trim }) };
  }
}

function isWide(kind: WatchedKind): kind is WideKind {
  return kind === 'pods' || kind === 'replicasets';
}
