import type { Job } from 'bullmq';
import { isPaused } from '../directive/paused.js';
import type { Directive } from '../directive/types.js';
import type { PodJson } from '../kube/pods.js';
import type { ClusterView } from '../kube/watch-view.js';
import type { Logger } from '../logger.js';
import { WaiterBuckets } from './waiter-buckets.js';
import {
  digestOf,
  podChanged,
  seenPod,
  counts,
  type SeenPod,
  type WakeCondition,
  type Waiter,
} from './wake-conditions.js';

export { digestOf, type WakeCondition } from './wake-conditions.js';

/**
 * The worker's parked jobs and what each waits for. A watch event that makes a condition true
 * promotes the delayed job at once instead of at its next re-check (which stays as the safety
 * net). In memory only: after a restart the delayed re-check still fires, so losing this registry
 * costs latency, never correctness. Waiters of a namespace are bucketed by one of their labels so
 * that a pod event looks only at the waiters it can concern (waiter-buckets.ts).
 */
export class Wakeups {
  private readonly byJob = new Map<string, { waiter: Waiter; bucket: Set<Waiter> }>();
  private readonly buckets = new WaiterBuckets();
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
    const bucket = this.buckets.bucketFor(condition);
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
    const labels = pod.metadata?.labels ?? {};
    let seen: SeenPod | undefined;
    this.buckets.visitPodBuckets(namespace, labels, (bucket) => {
      for (const waiter of bucket ?? []) {
        seen ??= seenPod(change, pod, labels);
        if (podChanged(waiter, seen)) this.wake(waiter);
      }
    });
  }

  private onDirective(directive: Directive): void {
    const { namespace, name } = directive.metadata;
    if (isPaused(directive)) return;
    for (const waiter of this.buckets.waiters(`directives/${namespace}/${name}`)) {
      this.wake(waiter);
    }
  }

  private onConfigMap(
    namespace: string,
    name: string | undefined,
    data: Readonly<Record<string, string>>,
  ): void {
    if (name === undefined) return;
    for (const waiter of this.buckets.waiters(`configmaps/${namespace}/${name}`)) {
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
      const seen = {
        uid: pod.uid,
        labels: condition.labels,
        qualifies: pod.ready && !pod.terminating,
        createdAt: pod.createdAt.getTime(),
      };
      if (counts(waiter, seen)) waiter.ready.add(pod.uid);
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
