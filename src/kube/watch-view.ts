import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Directive, ObjectRef } from '../directive/types.js';
import type { ChangeKind } from './informer.js';
import { PodLabelIndex } from './label-index.js';
import { toPodInfo, type PodInfo, type PodJson } from './pods.js';
import type { KubeWatches } from './watches.js';

/** A pod as its watch reports it (trimmed to what readers need, `watches.ts`). */
export type PodListener = (change: ChangeKind, pod: PodJson) => void;
export type ConfigMapListener = (change: ChangeKind, name: string, data: ConfigMapData) => void;
export type ConfigMapData = Readonly<Record<string, string>>;

/**
 * The cluster as the process's shared watches see it, in the workflow's terms (PodInfo, ConfigMap
 * keys, a ReplicaSet's scale). Every read answers `undefined` when the watch is not synced: the caller then asks the
 * API, so a cache is used only while it is being kept up to date.
 */
export class ClusterView {
  /** Each pod watch's label index, made at its first read (a new watch gets a new one). */
  private readonly podIndexes = new WeakMap<object, PodLabelIndex>();

  constructor(private readonly watches: KubeWatches) {}

  /** Pods of a namespace matching the labels, or undefined when the pod watch is not synced. */
  pods(namespace: string, labels: Record<string, string>): PodInfo[] | undefined {
    const informer = this.watches.synced('pods', namespace);
    if (informer === undefined) return undefined;
    let index = this.podIndexes.get(informer);
    if (index === undefined) {
      index = new PodLabelIndex(informer, namespace);
      this.podIndexes.set(informer, index);
    }
    return index.matching(labels).map(toPodInfo);
  }

  /** `{ value }` of a ConfigMap key (value undefined when absent), or undefined when not synced. */
  configMapKey(ref: ObjectRef, key: string): { value: string | undefined } | undefined {
    const informer = this.watches.synced('configmaps', ref.namespace);
    if (informer === undefined) return undefined;
    return { value: informer.get(ref.namespace, ref.name)?.data?.[key] };
  }

  /**
   * `{ replicas }` a ReplicaSet wants (its `spec.replicas`, 1 when unset; undefined when it is
   * gone), or undefined when the namespace's ReplicaSet watch is not synced. The first read of a
   * namespace starts its watch.
   */
  replicaSetScale(namespace: string, name: string): { replicas: number | undefined } | undefined {
    const informer = this.watches.synced('replicasets', namespace);
    if (informer === undefined) return undefined;
    const set = informer.get(namespace, name);
    return { replicas: set === undefined ? undefined : (set.spec?.replicas ?? 1) };
  }

  /**
   * Starts the namespace's pod watch if it is not running yet, so that it has listed by the time
   * a step reads it (a read of a watch not synced yet costs a LIST of its own).
   */
  watchPods(namespace: string): void {
    this.watches.informer('pods', namespace);
  }

  /** Starts the namespace's ReplicaSet watch if it is not running yet (as `watchPods`). */
  watchReplicaSets(namespace: string): void {
    this.watches.informer('replicasets', namespace);
  }

  /**
   * Every change of a pod of the namespace, starting the namespace's pod watch if needed. The pod
   * as the watch sent it: a listener reads only what it needs (it runs for every pod event).
   */
  onPods(namespace: string, listener: PodListener): () => void {
    return this.watches
      .informer('pods', namespace)
      .subscribe((change, pod) => listener(change, pod));
  }

  /** A directive as its watch holds it, or undefined when not synced or absent. */
  directive(ref: ObjectRef): Directive | undefined {
    return this.watches.synced('directives', ref.namespace)?.get(ref.namespace, ref.name);
  }

  /** Every change of a directive of the namespace (the worker's pause/resume wake-ups). */
  onDirectives(
    namespace: string,
    listener: (change: ChangeKind, directive: Directive) => void,
  ): () => void {
    return this.watches.informer('directives', namespace).subscribe(listener);
  }

  onConfigMaps(namespace: string, listener: ConfigMapListener): () => void {
    return this.watches
      .informer('configmaps', namespace)
      .subscribe((change, configMap: V1ConfigMap) =>
        listener(change, configMap.metadata?.name ?? '', configMap.data ?? {}),
      );
  }
}
