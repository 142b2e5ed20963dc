import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queue } from 'bullmq';

/**
 * The process's own Prometheus registry (never prom-client's global one, so that a library that
 * registers on the global registry cannot clash with these names). One per process: the HTTP
 * role, the worker and the kube gateway all record here, and `GET /metrics` serves it.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/*
 * Each metric is declared by one call: its name, help and labels (and a histogram's buckets) as
 * /metrics shows them, registered on this registry only.
 */
function counter<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

function gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> {
  return new Gauge<L>({ name, help, labelNames, registers: [registry] });
}

function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[],
): Histogram<L> {
  return new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
}

/** Every POST /v1/events, by the shape it arrived in and what became of it. */
export const eventsReceived = counter(
  'pod_bouncer_events_received_total',
  'Events received on POST /v1/events, by body shape, outcome and HTTP status.',
  ['shape', 'outcome', 'code'],
);

export const ingestDirectiveReads = counter(
  'pod_bouncer_ingest_directive_reads_total',
  'Directives an event referred to, by where ingest read them: "cache" (a watch cache at least as fresh as the event) or "api".',
  ['source'],
);

export const podsBounced = counter(
  'pod_bouncer_pods_bounced_total',
  'Pods deleted or evicted (or found already gone) by selector jobs, by namespace.',
  ['namespace'],
);

export const selectorDuration = histogram(
  'pod_bouncer_selector_duration_seconds',
  'Time from a selector becoming runnable (the previous selector done) to its end.',
  ['outcome'],
  [1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600],
);

export const waitDuration = histogram(
  'pod_bouncer_wait_duration_seconds',
  'Time a selector waited at a gate (rootCertSync, eviction, waitForReplicas).',
  ['gate', 'outcome'],
  [0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1200],
);

export const gateVerdicts = counter(
  'pod_bouncer_gate_verdicts_total',
  'Gates evaluated before a batch, by kind (alerts, query, windows) and verdict (open, closed); jobs sharing a cached verdict each count.',
  ['kind', 'verdict'],
);

export const prometheusRequests = counter(
  'pod_bouncer_prometheus_requests_total',
  'Requests of alerts and query gates to Prometheus, by kind and outcome (success; error: unreachable, slow, not a success, or the token file unreadable).',
  ['kind', 'outcome'],
);

export const kubeRequests = counter(
  'pod_bouncer_kubernetes_requests_total',
  'Requests sent to the Kubernetes API, by verb and HTTP status ("2xx" on success, "network" when no answer came).',
  ['verb', 'code'],
);

export const kubeRequestDuration = histogram(
  'pod_bouncer_kubernetes_request_duration_seconds',
  'Latency of requests to the Kubernetes API, by verb.',
  ['verb'],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
);

export const watchRestarts = counter(
  'pod_bouncer_watch_restarts_total',
  'Watch streams started again, by kind and reason: closed by the server, timeout (client-side, no data), expired (410: listed again), error (restarted with backoff), silent (the watchdog listed again).',
  ['kind', 'reason'],
);

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

/** Reads the counts at scrape time; with no queue observed, or Redis not answering, none. */
async function countJobs(): Promise<Map<string, number> | undefined> {
  if (observedQueues.size === 0) return undefined;
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
    const totals = await countJobs();
    for (const [state, count] of totals ?? []) this.set({ state }, count);
  },
});

export const queueDepth = new Gauge({
  name: 'pod_bouncer_queue_depth',
  help: 'Selector jobs a worker will take once due: waiting, prioritized and delayed (re-checks and retry backoffs included). Not counted: later selectors in waiting-children, whether waiting for the selector before them or held behind a failed one until it is retried or removed with it after RETENTION_DAYS (see pod_bouncer_jobs).',
  registers: [registry],
  async collect(): Promise<void> {
    this.reset();
    const totals = await countJobs();
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
export const buildInfo = gauge(
  'pod_bouncer_build_info',
  'Always 1; the labels say the pod-bouncer version, the Node.js version and the role of the process.',
  ['version', 'node', 'role'],
);

export const directiveState = gauge(
  'pod_bouncer_directive_state',
  'Status state of each directive this process last wrote: 1 for the current state, 0 for the others.',
  ['namespace', 'name', 'state'],
);

export const directiveLastTransition = gauge(
  'pod_bouncer_directive_last_transition_timestamp_seconds',
  'When this process last wrote a status transition of the directive (Unix seconds); the freshest instance tells the current state.',
  ['namespace', 'name'],
);

export const directiveLastFinished = gauge(
  'pod_bouncer_directive_last_finished_timestamp_seconds',
  'When a run of the directive last became FINISHED (Unix seconds).',
  ['namespace', 'name'],
);

export const directiveGatedSince = gauge(
  'pod_bouncer_directive_gated_since_timestamp_seconds',
  'When this process wrote the Gated Ready condition of the directive (Unix seconds); absent once it wrote another reason.',
  ['namespace', 'name'],
);

export const statusTransitions = counter(
  'pod_bouncer_status_transitions_total',
  'Status transitions written, by transition (accepted, bouncing, pods chosen, finished, failed, …).',
  ['transition'],
);

export const notifications = counter(
  'pod_bouncer_notifications_total',
  'Notification deliveries by outcome: "enqueued", "enqueue_failed", "delivered", "retried" (an attempt failed) or "dropped" (attempts exhausted).',
  ['outcome'],
);
