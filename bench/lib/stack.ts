// An in-process pod-bouncer on real parts, for benchmarks: the simulator over HTTP, the real
// client-node, the real Redis under a prefix of its own, the api, and a worker whose wake-ups
// can be switched off (the polling baseline).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../src/config.js';
import type { KubeGateway } from '../../src/kube/gateway.js';
import { createWatchCaches, type WatchCaches } from '../../src/kube/watch-caches.js';
import { createLogger } from '../../src/logger.js';
import { createWorkerConnection } from '../../src/queue/connection.js';
import { createKubeGateway, startServe, type ServeRole } from '../../src/runtime.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { StatusReporter } from '../../src/status/reporter.js';
import { StatusWriter } from '../../src/status/writer.js';
import { Wakeups } from '../../src/workflow/wakeups.js';
import { startWorker } from '../../src/workflow/worker.js';

export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const TOKEN = 'bench-token-0123456789';

export interface StackOptions {
  /** 'watch' (the default): shared watches and wake-ups; 'polling': the delayed re-check only. */
  mode?: 'watch' | 'polling';
  env?: Record<string, string>;
  /** Start the in-process worker (default true). */
  worker?: boolean;
}

export interface Stack {
  sim: Simulator;
  config: Config;
  env: Record<string, string>;
  kubeconfig: string;
  kube: KubeGateway;
  serve: ServeRole;
  worker: Worker | undefined;
  wakeups: Wakeups | undefined;
  post(body: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startStack(name: string, options: StackOptions = {}): Promise<Stack> {
  const sim = await startSimulator({ seed: 11, watchHistorySize: 100_000 });
  const dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
  const prefix = `pbbench-${name}-${randomBytes(3).toString('hex')}`;
  const env: Record<string, string> = {
    REDIS_URL,
    KUBECONFIG: kubeconfig,
    WEBHOOK_TOKENS: TOKEN,
    QUEUE_PREFIX: prefix,
    HOST: '127.0.0.1',
    PORT: '0',
    POLL_INTERVAL_MS: '1000',
    KUBE_QPS: '100000',
    KUBE_BURST: '100000',
    WORKER_CONCURRENCY: '50',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    ...options.env,
  };
  const config = loadConfig(env);
  const log = createLogger(config.logLevel);
  const kube = createKubeGateway(config);
  const serve = await startServe(config, log, kube);
  const mode = options.mode ?? 'watch';
  let worker: Worker | undefined;
  let wakeups: Wakeups | undefined;
  let caches: WatchCaches | undefined;
  const connection = createWorkerConnection(config.redisUrl);
  if (options.worker !== false) {
    const settings = {
      pollIntervalMs: config.pollIntervalMs,
      readinessTimeoutSeconds: config.readinessTimeoutSeconds,
      rootCertSyncTimeoutSeconds: config.rootCertSyncTimeoutSeconds,
      bounceMode: config.bounceMode,
      defaultMaxUnavailable: config.defaultMaxUnavailable,
    };
    const status = new StatusReporter(new StatusWriter(kube, log));
    if (mode === 'watch') {
      caches = createWatchCaches(config, kube, log);
      wakeups = new Wakeups(caches.view, log);
    }
    worker = startWorker(
      {
        kube,
        status,
        log,
        settings,
        ...(caches ? { directives: caches.directives, view: caches.view } : {}),
        ...(wakeups ? { wakeups } : {}),
      },
      {
        connection,
        prefix,
        concurrency: config.workerConcurrency,
        lockMs: config.jobLockMs,
      },
    );
  }
  return {
    sim,
    config,
    env,
    kubeconfig,
    kube,
    serve,
    worker,
    wakeups,
    async post(body) {
      const response = await fetch(`${serve.url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await serve.close();
      await worker?.close();
      wakeups?.close();
      await caches?.close();
      connection.disconnect();
      await sim.close();
      await deletePrefix(prefix);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function deletePrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** A directive manifest with the given selectors. */
export function directive(namespace: string, name: string, podsToBounce: object[]) {
  return {
    apiVersion: 'internal.gloo.solo.io/v2',
    kind: 'PodBounceDirective',
    metadata: { namespace, name },
    spec: { podsToBounce },
  };
}

/** Polls until `check` returns true, or fails with `what`. */
export async function until(what: string, check: () => boolean, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function state(sim: Simulator, namespace: string, name: string): string | undefined {
  return (sim.getDirective(namespace, name) as any)?.status?.state;
}

/** The 3 selectors of the ingest benchmark's directive number i. */
export function ingestSpec(i: number) {
  return Array.from({ length: 3 }, (_, k) => ({
    namespace: `in-${k}`,
    labels: { app: `a-${i}-${k}` },
    waitForReplicas: 1,
  }));
}
