import { randomBytes } from 'node:crypto';
import type { Config } from '../../src/config.js';
import type { KubeGateway } from '../../src/kube/gateway.js';
import type { ServeRole } from '../../src/runtime/serve.js';
import type { WorkRole } from '../../src/runtime/work.js';
import type { Simulator } from '../../src/sim/index.js';
import { directiveManifest, startSimStack } from '../../src/stack/sim-stack.js';
import { REDIS_URL } from './redis.js';

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
  /** The CRD the simulator validates with (default the chart's): a cluster that has another. */
  crdPath?: string;
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
 * A whole pod-bouncer on real parts (`src/stack/sim-stack.ts`): the simulator over HTTP, the real
 * client-node, the real Redis under a prefix of the test's own, the HTTP app on an ephemeral port
 * and (by default) a worker in this process.
 */
export async function startHarness(name: string, options: HarnessOptions = {}): Promise<Harness> {
  const stack = await startSimStack({
    // A test may bring its own prefix (a Redis Cluster hash tag); else one of its own.
    prefix: options.env?.QUEUE_PREFIX ?? `pbtest-${name}-${randomBytes(3).toString('hex')}`,
    simulator: { seed: 7, ...(options.crdPath === undefined ? {} : { crdPath: options.crdPath }) },
    env: {
      REDIS_URL,
      WEBHOOK_TOKENS: TOKEN,
      HOST: '127.0.0.1',
      PORT: '0',
      POLL_INTERVAL_MS: '100',
      JOB_LOCK_MS: '2000',
      // Tests send bursts of events from one token, and many runs of one directive; the limits
      // themselves are proven in rate-limit.test and run-budget.test.
      RATE_LIMIT_PER_MINUTE: '1000000',
      MAX_RUNS_PER_HOUR: '1000000',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...options.env,
    },
    ...(options.worker === undefined ? {} : { worker: options.worker }),
    ...(options.logDestination ? { logDestination: options.logDestination } : {}),
  });
  const { serve } = stack;

  return {
    sim: stack.sim,
    config: stack.config,
    env: stack.env,
    kube: stack.kube,
    serve,
    work: stack.work,
    prefix: stack.prefix,
    startWorker: () => stack.startWorker(),
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
    close: () => stack.close(),
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

/** The directive's condition Ready, if it has one. */
export function readyCondition(h: Harness, namespace: string, name: string): any {
  const directive = h.sim.getDirective(namespace, name) as any;
  return directive?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready');
}

/** Waits until the directive's Ready gives `reason`, and answers that condition. */
export async function waitForReady(h: Harness, namespace: string, name: string, reason: string) {
  return eventually(`${namespace}/${name} Ready to say ${reason}`, () => {
    const ready = readyCondition(h, namespace, name);
    return ready?.reason === reason ? ready : undefined;
  });
}

/** Waits for the Events of `reason` in `namespace`: each is written after the status write it tells. */
export async function waitForEvents(h: Harness, namespace: string, reason: string): Promise<any[]> {
  return eventually(`a ${reason} Event in ${namespace}`, () => {
    const events = h.sim
      .events()
      .filter((e: any) => e.involvedObject?.namespace === namespace && e.reason === reason);
    return events.length > 0 ? events : undefined;
  });
}

/** A directive manifest with the given selectors. */
export const directive = directiveManifest;

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
