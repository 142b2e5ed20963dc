/**
 * Start-up checks that turn "retries forever in silence" into one sentence and exit code 1: no
 * Kubernetes access configured, a kubeconfig that cannot be read, a context it does not have, a
 * Redis that does not answer within 10 s. The kubeconfig is read here without client-node, which
 * is slow to import; client-node's own reading is held to the same sentences when the gateway is
 * opened (`kube/open-gateway.ts`).
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Config } from './config.js';
import { readKubeconfigFile, type KubeconfigContexts } from './kube/kubeconfig-file.js';
import type { RedisTopology } from './queue/redis-topology.js';
import { redisAnswers, redisTarget } from './queue/redis-watch.js';

/** A start-up condition the operator must fix; the message is one sentence saying what to do. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

export const REDIS_START_TIMEOUT_MS = 10_000;
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

function readable(path: string): string | undefined {
  try {
    accessSync(path, constants.R_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable');
  }
}

/** Which kubeconfig file client-node would use, undefined for the in-cluster service account. */
export function kubeconfigSource(config: Config): string | undefined {
  if (config.kubeconfig !== undefined) {
    const problem = readable(config.kubeconfig);
    if (problem !== undefined) {
      throw new StartupError(
        `KUBECONFIG names ${config.kubeconfig}, which cannot be read (${problem}): point it at a kubeconfig file.`,
      );
    }
    return config.kubeconfig;
  }
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) return home;
  if (existsSync(SERVICE_ACCOUNT_TOKEN)) return undefined;
  throw new StartupError(
    'No Kubernetes API access: set KUBECONFIG to a kubeconfig file, create ~/.kube/config, or run pod-bouncer in a cluster with a service account.',
  );
}

/** How the sentences name the kubeconfig. */
export const describeSource = (source: string | undefined): string =>
  source ?? 'the in-cluster configuration';

/** A kubeconfig that cannot be loaded at all. */
export function unloadable(source: string | undefined, error: unknown): StartupError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StartupError(
    `The kubeconfig ${describeSource(source)} cannot be loaded (${reason}): fix or replace it.`,
  );
}

/** Throws a StartupError when KUBE_CONTEXT, or else the current context, leads to no cluster. */
export function checkContexts(
  config: Config,
  source: string | undefined,
  kubeconfig: KubeconfigContexts,
): void {
  const where = describeSource(source);
  if (config.kubeContext !== undefined && !kubeconfig.hasContext(config.kubeContext)) {
    const known = kubeconfig.names();
    throw new StartupError(
      `KUBE_CONTEXT "${config.kubeContext}" is not a context of ${where}; it has ${known.length > 0 ? known.join(', ') : 'none'}.`,
    );
  }
  if (config.kubeContext === undefined && !kubeconfig.currentHasCluster()) {
    throw new StartupError(
      `The current context of ${where} names no cluster: set KUBE_CONTEXT or fix current-context.`,
    );
  }
}

/** What client-node builds from a service account: one context, on one cluster. */
const IN_CLUSTER: KubeconfigContexts = {
  names: () => ['inClusterContext'],
  hasContext: (name) => name === 'inClusterContext',
  currentHasCluster: () => true,
};

/** Throws a StartupError when the Kubernetes API access described by the config cannot work. */
export function checkKubeAccess(config: Config): void {
  const source = kubeconfigSource(config);
  let kubeconfig = IN_CLUSTER;
  if (source !== undefined) {
    try {
      kubeconfig = readKubeconfigFile(source);
    } catch (error) {
      throw unloadable(source, error);
    }
  }
  checkContexts(config, source, kubeconfig);
}

const REDIS_VARIABLE: Record<RedisTopology['kind'], string> = {
  standalone: 'REDIS_URL',
  sentinel: 'REDIS_SENTINELS',
  cluster: 'REDIS_CLUSTER_NODES',
};

/**
 * Waits up to 10 s for Redis; throws a StartupError naming where it looked (never the password)
 * and what to do. `hint` replaces the generic advice (the demo says how to start Redis).
 */
export async function checkRedis(topology: RedisTopology, hint?: string): Promise<void> {
  if (await redisAnswers(topology, REDIS_START_TIMEOUT_MS)) return;
  const advice = hint ?? `start it, or set ${REDIS_VARIABLE[topology.kind]} to one that runs`;
  throw new StartupError(
    `Redis at ${redisTarget(topology)} did not answer within ${REDIS_START_TIMEOUT_MS / 1000} s: ${advice}.`,
  );
}
