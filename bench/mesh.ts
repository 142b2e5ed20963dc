// The `mesh` section: a directive as Gloo's issuer writes it (istiod with waitForReplicas 1, two
// gateways, then N workloads of 3 pods over N/5 namespaces, each gated by rootCertSync against its
// own namespace, ConfigMaps already in sync), readiness 1 s, on the simulator and a worker
// process. The floor is the batch plan's readiness waits at the run's concurrency, plus ingest.
import { Buffer } from 'node:buffer';
import { parseMaxUnavailable, resolveMaxUnavailable } from '../src/directive/max-unavailable.js';
import { planBatches } from '../src/workflow/batches.js';
import { KubeWatches } from '../src/kube/watches.js';
import type { RequestLogEntry } from '../src/sim/types.js';
import { createLogger } from '../src/logger.js';
import { redisBytes } from '../test/support/redis-bytes.js';
import { directive, startStack, state, until, type Stack } from './lib/stack.js';
import { round } from './lib/stats.js';
import { CHART_WORKER_NODE_OPTIONS, WORKER_USER, startWorkerProcess } from './scale.js';

const READY_MS = 1000;
const PODS = 3;
const GATEWAY_PODS = 2;
const ROOT = 'ROOT CERT 2026';

export interface MeshRun {
  workloads: number;
  concurrency: number;
  selectors: number;
  pods: number;
  ingestMs: number;
  wallMs: number;
  floorMs: number;
  ratioToFloor: number;
  peakRssMb: number;
  redisBytesPerSelector: number;
  statusBytes: number;
  objectBytes: number;
  requestsPerPod: number;
  podRequestsPerPod: number;
  podWatches: number;
  /** The worker's requests but watches, by `METHOD resource[/subresource] status`. */
  requestsBy: Record<string, number>;
}

/** Counts requests by method, resource (and subresource) and answer, most frequent first. */
function countBy(
  sent: { method: string; resource: string; subresource?: string; status: number }[],
) {
  const counts = new Map<string, number>();
  for (const r of sent) {
    const key = `${r.method} ${r.resource}${r.subresource ? `/${r.subresource}` : ''} ${r.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}

/** Readiness waits of one selector of `pods` pods at DEFAULT_MAX_UNAVAILABLE (25 %). */
function waitsOf(pods: number, waitForReplicas: number): number {
  const limit = resolveMaxUnavailable(parseMaxUnavailable('25%')!, pods);
  const chosen = Array.from({ length: pods }, (_, i) => ({ name: `p-${i}`, uid: `u-${i}` }));
  const batches = planBatches(chosen, limit).length;
  return batches - 1 + (waitForReplicas > 0 ? 1 : 0);
}

/**
 * istiod alone, then the rest `concurrency` at a time: no schedule beats the larger of their
 * readiness waits shared among the slots and the longest selector's own waits, plus ingest.
 */
function floorOf(workloads: number, concurrency: number, ingestMs: number): number {
  const rest = [
    ...Array.from({ length: 2 }, () => waitsOf(GATEWAY_PODS, 0)),
    ...Array.from({ length: workloads }, () => waitsOf(PODS, 0)),
  ];
  const shared = rest.reduce((sum, waits) => sum + waits, 0) / concurrency;
  const spread = Math.max(shared, ...rest);
  return Math.round(ingestMs + (waitsOf(1, 1) + spread) * READY_MS);
}

export interface MeshOptions {
  /** The worker's node flags (default: the chart's heap cap). */
  nodeOptions?: string;
  /** Started once the event is accepted, awaited once the run is FINISHED (a watching client). */
  alongside?: (stack: Stack) => Promise<unknown>;
  /** Given the worker's requests once the run is FINISHED (timelines, breakdowns). */
  inspect?: (sent: RequestLogEntry[], started: number) => void;
}

export async function meshRun(
  workloads: number,
  concurrency: number,
  options: MeshOptions = {},
): Promise<MeshRun> {
  const stack = await startStack(`mesh${workloads}k${concurrency}`, { worker: false });
  const { sim } = stack;
  try {
    sim.putSecret('istio-system', 'cacerts', {
      'root-cert.pem': ROOT,
    });
    const add = (namespace: string, app: string, replicas: number): void =>
      sim.addWorkload({
        namespace,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas,
        readinessDelayMs: READY_MS,
      });
    const synced = (namespace: string) => ({
      secretRef: { name: 'cacerts', namespace: 'istio-system' },
      secretKey: 'root-cert.pem',
      configMapRef: { name: 'istio-ca-root-cert', namespace },
      configMapKey: 'root-cert.pem',
    });
    add('istio-system', 'istiod', 1);
    const selectors: object[] = [
      { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 1 },
    ];
    for (const gateway of ['istio-ingressgateway', 'istio-eastwestgateway']) {
      add('istio-gateways', gateway, GATEWAY_PODS);
      selectors.push({
        namespace: 'istio-gateways',
        labels: { app: gateway },
        waitForReplicas: 0,
        rootCertSync: synced('istio-gateways'),
      });
    }
    sim.putConfigMap('istio-gateways', 'istio-ca-root-cert', { 'root-cert.pem': ROOT });
    const namespaces = Math.max(1, Math.floor(workloads / 5));
    for (let n = 0; n < namespaces; n += 1) {
      sim.putConfigMap(`mesh-${n}`, 'istio-ca-root-cert', { 'root-cert.pem': ROOT });
    }
    for (let w = 0; w < workloads; w += 1) {
      const namespace = `mesh-${w % namespaces}`;
      add(namespace, `workload-${w}`, PODS);
      selectors.push({
        namespace,
        labels: { app: `workload-${w}` },
        waitForReplicas: 0,
        rootCertSync: synced(namespace),
      });
    }
    const manifest = directive('gloo-mesh', 'mesh-certs', selectors);
    (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = concurrency;
    sim.applyDirective(manifest);
    const worker = await startWorkerProcess(
      stack,
      options.nodeOptions ?? CHART_WORKER_NODE_OPTIONS,
    );
    sim.resetRequests();
    const before = await redisBytes(stack.config.queuePrefix);
    const started = Date.now();
    const answer = await stack.post({ directive: { namespace: 'gloo-mesh', name: 'mesh-certs' } });
    const ingestMs = Date.now() - started;
    if (answer.status !== 202) throw new Error(`ingest answered ${answer.status}`);
    const beside = options.alongside?.(stack);
    const queued = await redisBytes(stack.config.queuePrefix);
    await until('FINISHED', () => state(sim, 'gloo-mesh', 'mesh-certs') === 'FINISHED', 3_600_000);
    const wallMs = Date.now() - started;
    await beside;
    const { rss } = await worker.stop();
    const object = sim.getDirective('gloo-mesh', 'mesh-certs') as { status: unknown };
    const sent = sim.requests().filter((request) => request.user === WORKER_USER);
    options.inspect?.(sent, started);
    const pods = 1 + 2 * GATEWAY_PODS + workloads * PODS;
    const floorMs = floorOf(workloads, concurrency, ingestMs);
    return {
      workloads,
      concurrency,
      selectors: selectors.length,
      pods,
      ingestMs,
      wallMs,
      floorMs,
      ratioToFloor: round(wallMs / floorMs, 2),
      peakRssMb: rss,
      redisBytesPerSelector: Math.round((queued.bytes - before.bytes) / selectors.length),
      statusBytes: Buffer.byteLength(JSON.stringify(object.status)),
      objectBytes: Buffer.byteLength(JSON.stringify(object)),
      requestsPerPod: round(sent.filter((r) => !r.watch).length / pods, 2),
      podRequestsPerPod: round(
        sent.filter((r) => !r.watch && r.resource === 'pods').length / pods,
        2,
      ),
      podWatches: sent.filter((r) => r.watch && r.resource === 'pods').length,
      requestsBy: countBy(sent.filter((r) => !r.watch)),
    };
  } finally {
    await stack.close();
  }
}

export interface WatchModeCost {
  mode: 'per-namespace' | 'cluster-wide';
  namespaces: number;
  /** LISTs and watch streams sent to start watching every namespace's pods. */
  lists: number;
  watches: number;
  /** Heap retained by the caches once synced, after a GC; absent without `node --expose-gc`. */
  heapMb?: number;
}

/**
 * What watching the pods of `namespaces` namespaces (`podsEach` pods each) costs at start, per
 * namespace and cluster-wide (KubeWatches with CLUSTER_WIDE_PODS_AFTER forced to either end).
 */
export async function watchModeCost(
  namespaces: number,
  podsEach: number,
  mode: WatchModeCost['mode'],
): Promise<WatchModeCost> {
  const stack = await startStack(`watch-${mode}`, { worker: false });
  try {
    for (let n = 0; n < namespaces; n += 1) {
      stack.sim.addWorkload({
        namespace: `w-${n}`,
        name: 'app',
        kind: 'ReplicaSet',
        labels: { app: 'app' },
        replicas: podsEach,
      });
    }
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    stack.sim.resetRequests();
    const watches = new KubeWatches(stack.kube.kubeConfig, createLogger('silent'), {
      clusterWidePodsAfter: mode === 'cluster-wide' ? 0 : undefined,
    });
    const names = Array.from({ length: namespaces }, (_, n) => `w-${n}`);
    await Promise.all(names.map((namespace) => watches.ready('pods', namespace)));
    gc?.();
    const heapMb =
      gc === undefined
        ? undefined
        : round((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20, 1);
    const sent = stack.sim.requests().filter((r) => r.resource === 'pods');
    await watches.close();
    return {
      mode,
      namespaces,
      lists: sent.filter((r) => !r.watch).length,
      watches: sent.filter((r) => r.watch).length,
      ...(heapMb === undefined ? {} : { heapMb }),
    };
  } finally {
    await stack.close();
  }
}
