import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queue } from 'bullmq';

/**
 * The process's own Prometheus registry (never prom-client's global one, so that a library that
 * registers on the global registry cannot clash with these names). One per process: the HTTP
 * role, the worker and the kube gateway all record here, and `GET /metrics` serves it.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Every POST /v1/events, by the shape it arrived in and what became of it. */
export const eventsReceived = new Counter({
  name: 'pod_bouncer_events_received_total',
  help: 'Events received on POST /v1/events, by body shape, outcome and HTTP status.',
  labelNames: ['shape', 'outcome', 'code'] as const,
  registers: [registry],
});

export const ingestDirectiveReads = new Counter({
  name: 'pod_bouncer_ingest_directive_reads_total',
  help: 'Directives an event referred to, by where ingest read them: "cache" (a watch cache at least as fresh as the event) or "api".',
  labelNames: ['source'] as const,
  registers: [registry],
});

export const podsBounced = new Counter({
  name: 'pod_bouncer_pods_bounced_total',
  help: 'Pods deleted or evicted (or found already gone) by selector jobs, by namespace.',
  labelNames: ['namespace'] as const,
  registers: [registry],
});

export const selectorDuration = new Histogram({
  name: 'pod_bouncer_selector_duration_seconds',
  help: 'Time from a selector becoming runnable (the previous selector done) to its end.',
  labelNames: ['outcome'] as const,
  buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600],
  registers: [registry],
});

export const waitDuration = new Histogram({
  name: 'pod_bouncer_wait_duration_seconds',
  help: 'Time a selector waited at a gate (rootCertSync, eviction, waitForReplicas).',
  labelNames: ['gate', 'outcome'] as const,
  buckets: [0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1200],
  registers: [registry],
});

export const gateVerdicts = new Counter({
  name: 'pod_bouncer_gate_verdicts_total',
  help: 'Gates evaluated before a batch, by kind (alerts, query, windows) and verdict (open, closed); jobs sharing a cached verdict each count.',
  labelNames: ['kind', 'verdict'] as const,
  registers: [registry],
});

export const prometheusRequests = new Counter({
  name: 'pod_bouncer_prometheus_requests_total',
  help: 'Requests of alerts and query gates to Prometheus, by kind and outcome (success; error: unreachable, slow, not a success, or the token file unreadable).',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
});

export const kubeRequests = new Counter({
  name: 'pod_bouncer_kubernetes_requests_total',
  help: 'Requests sent to the Kubernetes API, by verb and HTTP status ("2xx" on success, "network" when no answer came).',
  labelNames: ['verb', 'code'] as const,
  registers: [registry],
});

export const kubeRequestDuration = new Histogram({
  name: 'pod_bouncer_kubernetes_request_duration_seconds',
  help: 'Latency of requests to the Kubernetes API, by verb.',
  labelNames: ['verb'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const watchRestarts = new Counter({
  name: 'pod_bouncer_watch_restarts_total',
  help: 'Watch streams started again, by kind and reason: closed by the server, timeout (client-side, no data), expired (410: listed again), error (restarted with backoff), silent (the watchdog listed again).',
  labelNames: ['kind', 'reason'] as const,
  registers: [registry],
});

const JOB_STATES = [
  'waiting',
  'waiting-children',
  'prioritized',
  'delayed',
  'active',
  'completed',
  'failed',
] as const;
/**
 * Jobs a worker will take once they are due: what KEDA-style scaling looks at. Not
 * `waiting-children`: a later selector there needs no worker until the one before it completes,
 * and one behind a failed selector runs only if that job is retried (else it is removed with it
 * after RETENTION_DAYS). `pod_bouncer_jobs{state="waiting-children"}` counts both kinds.
 */
const DEPTH_STATES = ['waiting', 'prioritized', 'delayed'] as const;

/** What a scrape reads of a queue. */
type CountedQueue = Pick<Queue, 'getJobCounts'>;

const observedQueues = new Set<CountedQueue>();

/** Reads the counts at scrape time; when Redis does not answer, the series are left out. */
async function countJobs(): Promise<Map<string, number> | undefined> {
  const totals = new Map<string, number>(JOB_STATES.map((state) => [state, 0]));
  try {
    for (const queue of observedQueues) {
      const counts = await queue.getJobCounts(...JOB_STATES);
      for (const state of JOB_STATES) totals.set(state, totals.get(state)! + (counts[state] ?? 0));
    }
  } catch {
    return undefined;
  }
  return totals;
}

export const jobs = new Gauge({
  name: 'pod_bouncer_jobs',
  help: 'Selector jobs in the queue, by BullMQ state (read from Redis at scrape time).',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect(): Promise<void> {
    this.reset();
    const totals = observedQueues.size > 0 ? await countJobs() : undefined;
    for (const [state, count] of totals ?? []) this.set({ state }, count);
  },
});

export const queueDepth = new Gauge({
  name: 'pod_bouncer_queue_depth',
  help: 'Selector jobs a worker will take once due: waiting, prioritized and delayed (re-checks and retry backoffs included). Not counted: later selectors in waiting-children, whether waiting for the selector before them or held behind a failed one until it is retried or removed with it after RETENTION_DAYS (see pod_bouncer_jobs).',
  registers: [registry],
  async collect(): Promise<void> {
    this.reset();
    const totals = observedQueues.size > 0 ? await countJobs() : undefined;
    if (totals === undefined) return;
    this.set(DEPTH_STATES.reduce((sum, state) => sum + (totals.get(state) ?? 0), 0));
  },
});

/** Makes the queue's job counts part of every scrape until the returned function is called. */
export function observeQueue(queue: CountedQueue): () => void {
  observedQueues.add(queue);
  return () => observedQueues.delete(queue);
}

/** Always 1: which version runs where, and in which role ("serve", "work" or "all"). */
export const buildInfo = new Gauge({
  name: 'pod_bouncer_build_info',
  help: 'Always 1; the labels say the pod-bouncer version, the Node.js version and the role of the process.',
  labelNames: ['version', 'node', 'role'] as const,
  registers: [registry],
});

export const directiveState = new Gauge({
  name: 'pod_bouncer_directive_state',
  help: 'Status state of each directive this process last wrote: 1 for the current state, 0 for the others.',
  labelNames: ['namespace', 'name', 'state'] as const,
  registers: [registry],
});

export const directiveLastTransition = new Gauge({
  name: 'pod_bouncer_directive_last_transition_timestamp_seconds',
  help: 'When this process last wrote a status transition of the directive (Unix seconds); the freshest instance tells the current state.',
  labelNames: ['namespace', 'name'] as const,
  registers: [registry],
});

export const directiveLastFinished = new Gauge({
  name: 'pod_bouncer_directive_last_finished_timestamp_seconds',
  help: 'When a run of the directive last became FINISHED (Unix seconds).',
  labelNames: ['namespace', 'name'] as const,
  registers: [registry],
});

export const directiveGatedSince = new Gauge({
  name: 'pod_bouncer_directive_gated_since_timestamp_seconds',
  help: 'When this process wrote the Gated Ready condition of the directive (Unix seconds); absent once it wrote another reason.',
  labelNames: ['namespace', 'name'] as const,
  registers: [registry],
});

export const statusTransitions = new Counter({
  name: 'pod_bouncer_status_transitions_total',
  help: 'Status transitions written, by transition (accepted, bouncing, pods chosen, finished, failed, …).',
  labelNames: ['transition'] as const,
  registers: [registry],
});

export const notifications = new Counter({
  name: 'pod_bouncer_notifications_total',
  help: 'Notification deliveries by outcome: "enqueued", "enqueue_failed", "delivered", "retried" (an attempt failed) or "dropped" (attempts exhausted).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
