import { createHash } from 'node:crypto';
import type { Job } from 'bullmq';
import { matchesLabels } from '../directive/syntax.js';
import { isPaused } from '../directive/paused.js';
import type { Directive, ObjectRef } from '../directive/types.js';
import type { PodJson } from '../kube/pods.js';
import type { ClusterView } from '../kube/watch-view.js';
import type { Logger } from '../logger.js';

/** What a parked job waits for, in terms a watch event can decide. */
export type WakeCondition =
  | {
      kind: 'replicas';
      namespace: string;
      labels: Record<string, string>;
      wanted: number;
      /** Uids that do not count (the pods this selector bounced). */
      exclude: string[];
    }
  /** A ConfigMap key whose sha256 must become `digest` (the Secret's value, never kept itself). */
  | { kind: 'configMapKey'; ref: ObjectRef; key: string; digest: string }
  /** Any pod of the namespace turning Ready (a PodDisruptionBudget may allow an eviction now). */
  | { kind: 'podReady'; namespace: string }
  /** The directive no longer paused (its pause annotation removed or not "true"). */
  | { kind: 'resumed'; ref: ObjectRef };

interface Waiter {
  job: Job;
  condition: WakeCondition;
  /** replicas: the qualifying pods seen so far. */
  ready: Set<string>;
  /** replicas: the uids that do not count, as a set (a selector may have thousands). */
  excluded: Set<string>;
}

/** sha256 of a root certificate, the only form in which a waiter remembers it. */
export function digestOf(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The worker's parked jobs and what each waits for. A watch event that makes a condition true
 * promotes the delayed job at once instead of at its next re-check (which stays as the safety
 * net). In memory only: after a restart the delayed re-check still fires, so losing this registry
 * costs latency, never correctness. Waiters of a namespace are bucketed by one of their labels so
 * that a pod event looks only at the waiters it can concern.
 */
export class Wakeups {
  private readonly byJob = new Map<string, { waiter: Waiter; bucket: Set<Waiter> }>();
  private readonly buckets = new Map<string, Set<Waiter>>();
  /** The pod buckets again, by namespace, then label key and value: a pod event builds no key. */
  private readonly podIndex = new Map<string, PodBuckets>();
  private readonly unsubscribers = new Map<string, () => void>();
  /** Wake-ups sent, for tests and the benchmark. */
  woken = 0;

  constructor(
    private readonly view: ClusterView,
    private readonly log: Logger,
  ) {}

  /** Registers a parked (delayed) job; wakes it at once if the cache already says it may go on. */
  park(job: Job, condition: WakeCondition): void {
    if (job.id === undefined) return;
    this.forget(job.id);
    const excluded = new Set(condition.kind === 'replicas' ? condition.exclude : []);
    const waiter: Waiter = { job, condition, ready: new Set(), excluded };
    const bucket = this.bucketFor(condition);
    bucket.add(waiter);
    this.byJob.set(job.id, { waiter, bucket });
    this.watch(condition);
    if (this.initiallyMet(waiter)) this.wake(waiter);
  }

  /** Drops a job's registration (it runs again, or is done). */
  forget(jobId: string | undefined): void {
    if (jobId === undefined) return;
    const entry = this.byJob.get(jobId);
    if (entry === undefined) return;
    entry.bucket.delete(entry.waiter);
    this.byJob.delete(jobId);
  }

  get size(): number {
    return this.byJob.size;
  }

  close(): void {
    for (const unsubscribe of this.unsubscribers.values()) unsubscribe();
    this.unsubscribers.clear();
    this.byJob.clear();
    this.buckets.clear();
  }

  private bucketFor(condition: WakeCondition): Set<Waiter> {
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

  /** One listener per watched (kind, namespace), however many jobs wait there. */
  private watch(condition: WakeCondition): void {
    if (condition.kind === 'resumed') {
      const key = `directives/${condition.ref.namespace}`;
      if (this.unsubscribers.has(key)) return;
      const namespace = condition.ref.namespace;
      this.unsubscribers.set(
        key,
        this.view.onDirectives(namespace, (_change, directive) => this.onDirective(directive)),
      );
      return;
    }
    const isConfigMap = condition.kind === 'configMapKey';
    const namespace = isConfigMap ? condition.ref.namespace : condition.namespace;
    const key = `${isConfigMap ? 'configmaps' : 'pods'}/${namespace}`;
    if (this.unsubscribers.has(key)) return;
    const unsubscribe = isConfigMap
      ? this.view.onConfigMaps(namespace, (change, name, data) =>
          this.onConfigMap(namespace, change === 'delete' ? undefined : name, data),
        )
      : this.view.onPods(namespace, (change, pod) => this.onPod(namespace, change, pod));
    this.unsubscribers.set(key, unsubscribe);
  }

  /** A pod event: only the buckets its namespace and labels name are looked at. */
  private onPod(namespace: string, change: string, pod: PodJson): void {
    const index = this.podIndex.get(namespace);
    if (index === undefined) return;
    const labels = pod.metadata?.labels ?? {};
    let seen: SeenPod | undefined;
    const visit = (bucket: Set<Waiter> | undefined): void => {
      for (const waiter of bucket ?? []) {
        seen ??= seenPod(change, pod, labels);
        if (this.podChanged(waiter, seen)) this.wake(waiter);
      }
    };
    visit(index.any);
    for (const key in labels) visit(index.byLabel.get(key)?.get(labels[key]!));
  }

  /** Whether a waiter's condition holds after this pod change. */
  private podChanged(waiter: Waiter, pod: SeenPod): boolean {
    const { condition } = waiter;
    if (condition.kind === 'podReady') return pod.qualifies;
    if (condition.kind !== 'replicas' || !matchesLabels(pod.labels, condition.labels)) return false;
    if (pod.qualifies && !waiter.excluded.has(pod.uid)) waiter.ready.add(pod.uid);
    else waiter.ready.delete(pod.uid);
    return waiter.ready.size >= condition.wanted;
  }

  private onDirective(directive: Directive): void {
    const { namespace, name } = directive.metadata;
    if (isPaused(directive)) return;
    for (const waiter of this.buckets.get(`directives/${namespace}/${name}`) ?? []) {
      this.wake(waiter);
    }
  }

  private onConfigMap(
    namespace: string,
    name: string | undefined,
    data: Readonly<Record<string, string>>,
  ): void {
    if (name === undefined) return;
    for (const waiter of this.buckets.get(`configmaps/${namespace}/${name}`) ?? []) {
      const { condition } = waiter;
      if (condition.kind !== 'configMapKey') continue;
      const value = data[condition.key];
      if (value !== undefined && digestOf(value) === condition.digest) this.wake(waiter);
    }
  }

  private initiallyMet(waiter: Waiter): boolean {
    const { condition } = waiter;
    if (condition.kind === 'configMapKey') {
      const value = this.view.configMapKey(condition.ref, condition.key)?.value;
      return value !== undefined && digestOf(value) === condition.digest;
    }
    if (condition.kind === 'podReady') return false;
    if (condition.kind === 'resumed') {
      const directive = this.view.directive(condition.ref);
      return directive !== undefined && !isPaused(directive);
    }
    for (const pod of this.view.pods(condition.namespace, condition.labels) ?? []) {
      if (pod.ready && !pod.terminating && !waiter.excluded.has(pod.uid)) waiter.ready.add(pod.uid);
    }
    return waiter.ready.size >= condition.wanted;
  }

  private wake(waiter: Waiter): void {
    const { job } = waiter;
    this.forget(job.id);
    this.woken += 1;
    // Only a job still delayed can be promoted; one already running or done needs no wake-up.
    job.promote().catch((error: unknown) => {
      this.log.debug({ err: error, jobId: job.id }, 'wake-up found the job no longer delayed');
    });
  }
}

function bucketKey(condition: WakeCondition): string {
  if (condition.kind === 'resumed') {
    return `directives/${condition.ref.namespace}/${condition.ref.name}`;
  }
  if (condition.kind === 'configMapKey') {
    return `configmaps/${condition.ref.namespace}/${condition.ref.name}`;
  }
  if (condition.kind === 'podReady') return `pods/${condition.namespace}/`;
  const first = firstLabel(condition.labels);
  return first === undefined
    ? `pods/${condition.namespace}/`
    : `pods/${condition.namespace}/${first[0]}=${first[1]}`;
}

/** The label a replicas waiter is filed under: the first key in sorted order. */
function firstLabel(labels: Record<string, string>): [string, string] | undefined {
  const [first] = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1));
  return first;
}

/** A namespace's pod buckets: waiters on any pod, and waiters filed under one label. */
interface PodBuckets {
  any: Set<Waiter> | undefined;
  byLabel: Map<string, Map<string, Set<Waiter>>>;
}

/** What a pod event tells a waiter. */
interface SeenPod {
  uid: string;
  labels: Record<string, string>;
  /** Ready and not terminating (and not deleted). */
  qualifies: boolean;
}

function seenPod(change: string, pod: PodJson, labels: Record<string, string>): SeenPod {
  const metadata = pod.metadata ?? {};
  const ready = pod.status?.conditions?.some(
    (condition) => condition.type === 'Ready' && condition.status === 'True',
  );
  const terminating =
    metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null;
  return {
    uid: metadata.uid ?? '',
    labels,
    qualifies: change !== 'delete' && ready === true && !terminating,
  };
}
