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
}

export const DEFAULT_WATCH_SETTINGS: WatchSettings = Object.freeze({ silenceLimitMs: 45_000 });

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
  informer<K extends WatchedKind>(kind: K, namespace: string): Informer<KindObjects[K]> {
    const key = `${kind}/${namespace}`;
    let informer = this.informers.get(key) as Informer<KindObjects[K]> | undefined;
    if (informer === undefined) {
      informer = this.create(kind, namespace);
      this.informers.set(key, informer as Informer<unknown>);
      if (!this.closed) void informer.start();
    }
    return informer;
  }

  /** The informer only if it exists and is synced: a cache that may answer for the API. */
  synced<K extends WatchedKind>(kind: K, namespace: string): Informer<KindObjects[K]> | undefined {
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
  }

  private create<K extends WatchedKind>(kind: K, namespace: string): Informer<KindObjects[K]> {
    const log = this.log.child({ watch: kind, namespace });
    return new Informer<KindObjects[K]>(
      this.kubeConfig,
      this.source(kind, namespace),
      log,
      this.settings.silenceLimitMs,
    );
  }

  private source(kind: WatchedKind, namespace: string): InformerSource {
    const scope = namespace === EVERY_NAMESPACE ? '' : `/namespaces/${namespace}`;
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
