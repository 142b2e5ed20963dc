import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig, type Config } from '../config.js';
import { DIRECTIVE_API_VERSION, DIRECTIVE_KIND } from '../directive/types.js';
import type { KubeGateway } from '../kube/gateway.js';
import { createLogger, type Logger } from '../logger.js';
import { createKubeGateway } from '../kube/open-gateway.js';
import { startServe, type ServeRole } from '../runtime/serve.js';
import { startWork, type WorkRole } from '../runtime/work.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../sim/index.js';

export interface SimStackOptions {
  /** The queue prefix, the stack's own: everything under it is deleted on close. */
  prefix: string;
  /** Configuration as environment variables; KUBECONFIG and QUEUE_PREFIX are the stack's. */
  env: Record<string, string | undefined>;
  simulator?: SimulatorOptions;
  /** Start a worker role (default true); more can be started with `startWorker`. */
  worker?: boolean;
  /** Where the logger writes (default stdout). */
  logDestination?: NodeJS.WritableStream;
}

/** A whole pod-bouncer on a simulated cluster, in this process. */
export interface SimStack {
  sim: Simulator;
  config: Config;
  /** The environment the config was read from, KUBECONFIG and QUEUE_PREFIX included. */
  env: Record<string, string>;
  /** Path of the simulator's kubeconfig, for child processes. */
  kubeconfig: string;
  prefix: string;
  log: Logger;
  kube: KubeGateway;
  serve: ServeRole;
  /** The worker started with the stack, if any. */
  work: WorkRole | undefined;
  /** Starts one more worker role on the same gateway and caches; closed with the stack. */
  startWorker(): WorkRole;
  /** Stops the roles, the gateway and the simulator; deletes the prefix's keys and the kubeconfig. */
  close(): Promise<void>;
}

/**
 * Boots the simulator over HTTP, writes its kubeconfig to a temporary folder and starts the real
 * roles on it (`runtime.ts`: the api, and by default a worker) with the real client-node and the
 * real Redis under the given prefix. Tests, benchmarks and `pod-bouncer demo` all start here.
 */
export async function startSimStack(options: SimStackOptions): Promise<SimStack> {
  const sim = await startSimulator(options.simulator);
  const dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
  const env = definedOnly({ ...options.env, KUBECONFIG: kubeconfig, QUEUE_PREFIX: options.prefix });
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
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
  // Started means answering every route as it will: what the api loads on first use is loaded.
  await serve.loadAll();
  return {
    sim,
    config,
    env,
    kubeconfig,
    prefix: options.prefix,
    log,
    kube,
    serve,
    work,
    startWorker,
    async close(): Promise<void> {
      await serve.close();
      for (const role of workers) await role.close();
      await kube.close();
      await sim.close();
      await deletePrefix(config.redisUrl, options.prefix);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Removes every key under a prefix with SCAN (never KEYS, never FLUSHDB): the Redis may be shared
 * with other installations and other test runs.
 */
export async function deletePrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
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
export function directiveManifest(
  namespace: string,
  name: string,
  podsToBounce: object[],
): { apiVersion: string; kind: string; metadata: object; spec: { podsToBounce: object[] } } {
  return {
    apiVersion: DIRECTIVE_API_VERSION,
    kind: DIRECTIVE_KIND,
    metadata: { namespace, name },
    spec: { podsToBounce },
  };
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) defined[key] = value;
  return defined;
}
