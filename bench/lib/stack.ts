// An in-process pod-bouncer on real parts, for benchmarks (`src/stack/sim-stack.ts`): the
// simulator over HTTP, the real client-node, the real Redis under a prefix of its own, the api,
// and a worker whose wake-ups can be switched off (the polling baseline).
import { randomBytes } from 'node:crypto';
import type { Worker } from 'bullmq';
import type { Config } from '../../src/config.js';
import type { KubeGateway } from '../../src/kube/gateway.js';
import { createWorkerConnection } from '../../src/queue/connection.js';
import type { ServeRole } from '../../src/runtime/serve.js';
import type { Simulator } from '../../src/sim/index.js';
import {
  deletePrefix as deleteKeys,
  directiveManifest,
  startSimStack,
  type SimStack,
} from '../../src/stack/sim-stack.js';
import { StatusReporter } from '../../src/status/reporter.js';
import { StatusWriter } from '../../src/status/writer.js';
import type { Wakeups } from '../../src/workflow/wakeups.js';
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
  const mode = options.mode ?? 'watch';
  const stack = await startSimStack({
    prefix: `pbbench-${name}-${randomBytes(3).toString('hex')}`,
    simulator: { seed: 11, watchHistorySize: 100_000 },
    env: {
      REDIS_URL,
      WEBHOOK_TOKENS: TOKEN,
      HOST: '127.0.0.1',
      PORT: '0',
      POLL_INTERVAL_MS: '1000',
      KUBE_QPS: '100000',
      KUBE_BURST: '100000',
      // Every request still pays for the count; the load is one token's, far over the default.
      RATE_LIMIT_PER_MINUTE: '1000000',
      MAX_RUNS_PER_HOUR: '1000000',
      WORKER_CONCURRENCY: '50',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
      ...options.env,
    },
    worker: options.worker !== false && mode === 'watch',
  });
  const polling = options.worker !== false && mode === 'polling' ? pollingWorker(stack) : undefined;
  const { serve } = stack;
  return {
    sim: stack.sim,
    config: stack.config,
    env: stack.env,
    kubeconfig: stack.kubeconfig,
    kube: stack.kube,
    serve,
    worker: stack.work?.worker ?? polling?.worker,
    wakeups: stack.work?.wakeups,
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
      await polling?.close();
      await stack.close();
    },
  };
}

/** The baseline: a worker with no watch caches and no wake-ups, only the delayed re-check. */
function pollingWorker(stack: SimStack): { worker: Worker; close(): Promise<void> } {
  const { config, kube, log } = stack;
  const connection = createWorkerConnection(config.redis);
  const worker = startWorker(
    {
      kube,
      status: new StatusReporter(new StatusWriter(kube, log)),
      log,
      settings: {
        pollIntervalMs: config.pollIntervalMs,
        readinessTimeoutSeconds: config.readinessTimeoutSeconds,
        rootCertSyncTimeoutSeconds: config.rootCertSyncTimeoutSeconds,
        bounceMode: config.bounceMode,
        defaultMaxUnavailable: config.defaultMaxUnavailable,
      },
    },
    {
      connection,
      prefix: config.queuePrefix,
      concurrency: config.workerConcurrency,
      lockMs: config.jobLockMs,
    },
  );
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}

export async function deletePrefix(prefix: string): Promise<void> {
  await deleteKeys(REDIS_URL, prefix);
}

/** A directive manifest with the given selectors. */
export const directive = directiveManifest;

/** Polls until `check` returns true, or fails with `what`. */
export async function until(what: string, check: () => boolean, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function state(sim: Simulator, namespace: string, name: string): string | undefined {
  return sim.directiveState(namespace, name);
}

/** The 3 selectors of the ingest benchmark's directive number i. */
export function ingestSpec(i: number) {
  return Array.from({ length: 3 }, (_, k) => ({
    namespace: `in-${k}`,
    labels: { app: `a-${i}-${k}` },
    waitForReplicas: 1,
  }));
}
