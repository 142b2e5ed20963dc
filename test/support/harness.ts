import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import type { KubeGateway } from '../../src/kube/gateway.js';
import { createLogger } from '../../src/logger.js';
import {
  createKubeGateway,
  startServe,
  startWork,
  type ServeRole,
  type WorkRole,
} from '../../src/runtime.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { deletePrefix, REDIS_URL } from './redis.js';

export const TOKEN = 'test-token-0123456789';

/**
 * The Gloo agent's behaviour (every chosen pod of a selector DELETEd at once), for tests about
 * something else that count DELETEs or expect a selector's wait to be its waitForReplicas. The
 * safe defaults (evict, 25%) are covered by batches, evict-default, pause-abort and the chaos test.
 */
export const ALL_AT_ONCE = { BOUNCE_MODE: 'delete', DEFAULT_MAX_UNAVAILABLE: '100%' } as const;

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Start a worker in this process (default true). */
  worker?: boolean;
  /** Where the in-process logger writes (default stdout), e.g. a LogCapture. */
  logDestination?: NodeJS.WritableStream;
}

export interface Harness {
  sim: Simulator;
  config: Config;
  env: Record<string, string>;
  kube: KubeGateway;
  serve: ServeRole;
  work: WorkRole | undefined;
  prefix: string;
  post(
    body: unknown,
    init?: { token?: string | null; headers?: Record<string, string>; raw?: string },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  get(path: string): Promise<{ status: number; body: any }>;
  startWorker(): WorkRole;
  close(): Promise<void>;
}

/**
 * A whole pod-bouncer on real parts: the simulator over HTTP, the real client-node, the real
 * Redis under a prefix of the test's own, the HTTP app on an ephemeral port and (by default) a
 * worker in this process.
 */
export async function startHarness(name: string, options: HarnessOptions = {}): Promise<Harness> {
  const sim = await startSimulator({ seed: 7 });
  const dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
  const prefix = `pbtest-${name}-${randomBytes(3).toString('hex')}`;
  const env: Record<string, string> = {
    REDIS_URL,
    KUBECONFIG: kubeconfig,
    WEBHOOK_TOKENS: TOKEN,
    QUEUE_PREFIX: prefix,
    HOST: '127.0.0.1',
    PORT: '0',
    POLL_INTERVAL_MS: '100',
    JOB_LOCK_MS: '2000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...options.env,
  };
  const config = loadConfig(env);
  const log = createLogger(config.logLevel, options.logDestination);
  const kube = createKubeGateway(config);
  const workers: WorkRole[] = [];
  const startWorker = (): WorkRole => {
    const role = startWork(config, log, kube);
    workers.push(role);
    return role;
  };
  const work = options.worker === false ? undefined : startWorker();
  const serve = await startServe(config, log, kube);

  return {
    sim,
    config,
    env,
    kube,
    serve,
    work,
    prefix,
    startWorker,
    async post(body, init = {}) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        ...init.headers,
      };
      const token = init.token === undefined ? TOKEN : init.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      const response = await fetch(`${serve.url}/v1/events`, {
        method: 'POST',
        headers,
        body: init.raw ?? JSON.stringify(body),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text ? JSON.parse(text) : undefined,
        headers: response.headers,
      };
    },
    async get(path) {
      const response = await fetch(`${serve.url}${path}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      return { status: response.status, body: await response.json() };
    },
    async close() {
      await serve.close();
      for (const role of workers) await role.close();
      await sim.close();
      await deletePrefix(prefix);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a value other than undefined, or fails with `what`. */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until the directive's status reaches `state` for its current generation. */
export async function waitForState(
  h: Harness,
  namespace: string,
  name: string,
  state: string,
  timeoutMs = 30_000,
  failFast = true,
) {
  return eventually(
    `${namespace}/${name} to be ${state}`,
    () => {
      const directive = h.sim.getDirective(namespace, name) as any;
      if (
        directive?.status?.state === state &&
        directive.status.observedGeneration === directive.metadata.generation
      ) {
        return directive;
      }
      if (failFast && state !== 'FAILED' && directive?.status?.state === 'FAILED') {
        throw new Error(`${namespace}/${name} FAILED: ${directive.status.error}`);
      }
      return undefined;
    },
    timeoutMs,
  );
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

/**
 * istiod (2 replicas) whose replacements never become Ready, then a gateway: a directive in
 * istio-system that bounces istiod and then waits until READINESS_TIMEOUT_SECONDS fails it.
 */
export function stuckMesh(h: Harness, name: string, gatewayReplicas = 1): void {
  h.sim.addWorkload({
    namespace: 'istio-system',
    name: 'istiod',
    kind: 'ReplicaSet',
    labels: { app: 'istiod' },
    replicas: 2,
    readinessDelayMs: null,
  });
  h.sim.addWorkload({
    namespace: 'istio-system',
    name: 'gateway',
    kind: 'ReplicaSet',
    labels: { app: 'gateway' },
    replicas: gatewayReplicas,
  });
  h.sim.applyDirective(
    directive('istio-system', name, [
      { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 2 },
      { namespace: 'istio-system', labels: { app: 'gateway' }, waitForReplicas: gatewayReplicas },
    ]),
  );
}
