/**
 * The parked jobs' waiters, filed so that a watch event looks only at those it can concern: by
 * the object they watch, and a namespace's pod waiters again by one of their labels.
 */

import { bucketKey, firstLabel, type WakeCondition, type Waiter } from './wake-conditions.js';

/** A namespace's pod buckets: waiters on any pod, and waiters filed under one label. */
interface PodBuckets {
  any: Set<Waiter> | undefined;
  byLabel: Map<string, Map<string, Set<Waiter>>>;
}

export class WaiterBuckets {
  private readonly buckets = new Map<string, Set<Waiter>>();
  /** The pod buckets again, by namespace, then label key and value: a pod event builds no key. */
  private readonly podIndex = new Map<string, PodBuckets>();

  /** The bucket a condition's waiter goes in, made (and indexed) on first use. */
  bucketFor(condition: WakeCondition): Set<Waiter> {
    const key = bucketKey(condition);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = new Set();
      this.buckets.set(key, bucket);
      if (condition.kind === 'replicas' || condition.kind === 'podReady') {
        this.indexPodBucket(condition, bucket);
      }
    }
    return bucket;
  }

  /** The waiters filed under a key (`directives/<ns>/<name>`, `configmaps/<ns>/<name>`). */
  waiters(key: string): Iterable<Waiter> {
    return this.buckets.get(key) ?? [];
  }

  /** Visits the pod buckets a pod of these labels can concern: any-pod waiters, then by label. */
  visitPodBuckets(
    namespace: string,
    labels: Record<string, string>,
    visit: (bucket: Set<Waiter> | undefined) => void,
  ): void {
    const index = this.podIndex.get(namespace);
    if (index === undefined) return;
    visit(index.any);
    for (const key in labels) visit(index.byLabel.get(key)?.get(labels[key]!));
  }

  clear(): void {
    this.buckets.clear();
  }

  private indexPodBucket(
    condition: Extract<WakeCondition, { kind: 'replicas' | 'podReady' }>,
    bucket: Set<Waiter>,
  ): void {
    let index = this.podIndex.get(condition.namespace);
    if (index === undefined) {
      index = { any: undefined, byLabel: new Map() };
      this.podIndex.set(condition.namespace, index);
    }
    const label = condition.kind === 'replicas' ? firstLabel(condition.labels) : undefined;
    if (label === undefined) {
      index.any = bucket;
      return;
    }
    let values = index.byLabel.get(label[0]);
    if (values === undefined) {
      values = new Map();
      index.byLabel.set(label[0], values);
    }
    values.set(label[1], bucket);
  }
}
