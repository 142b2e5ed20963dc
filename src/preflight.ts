/**
 * Start-up checks that turn "retries forever in silence" into one sentence and exit code 1: no
 * Kubernetes access configured, a kubeconfig that cannot be read, a context it does not have, a
 * Redis that does not answer within 10 s or refuses the database of REDIS_URL. The kubeconfig is
 * read here without client-node, which is slow to import, and judged with the sentences of
 * `kube/kubeconfig-checks.ts`, which hold client-node's own reading when the gateway is opened
 * (`kube/open-gateway.ts`).
 */
import { StartupError } from './errors.js';
import {
  checkContexts,
  kubeconfigSource,
  unloadable,
  type KubeAccess,
} from './kube/kubeconfig-checks.js';
import { readKubeconfigFile, type KubeconfigContexts } from './kube/kubeconfig-file.js';
import type { RedisTopology } from './queue/redis-topology.js';
import { redisAnswer, redisTarget } from './queue/redis-watch.js';

export const REDIS_START_TIMEOUT_MS = 10_000;

/** What client-node builds from a service account: one context, on one cluster. */
const IN_CLUSTER: KubeconfigContexts = {
  names: () => ['inClusterContext'],
  hasContext: (name) => name === 'inClusterContext',
  currentHasCluster: () => true,
};

/** Throws a StartupError when the configured Kubernetes API access cannot work. */
export function checkKubeAccess(access: KubeAccess): void {
  const source = kubeconfigSource(access);
  let kubeconfig = IN_CLUSTER;
  if (source !== undefined) {
    try {
      kubeconfig = readKubeconfigFile(source);
    } catch (error) {
      throw unloadable(source, error);
    }
  }
  checkContexts(access, source, kubeconfig);
}

const REDIS_VARIABLE: Record<RedisTopology['kind'], string> = {
  standalone: 'REDIS_URL',
  sentinel: 'REDIS_SENTINELS',
  cluster: 'REDIS_CLUSTER_NODES',
};

/**
 * Waits up to 10 s for Redis; throws a StartupError naming where it looked (never the password)
 * and what to do. `hint` replaces the generic advice (the demo says how to start Redis). A database
 * Redis refuses stops the process too: serving on another database would lose every queued job.
 */
export async function checkRedis(topology: RedisTopology, hint?: string): Promise<void> {
  const answer = await redisAnswer(topology, REDIS_START_TIMEOUT_MS);
  if (answer === 'ready') return;
  const variable = REDIS_VARIABLE[topology.kind];
  if (answer !== 'silent') {
    throw new StartupError(
      `Redis at ${redisTarget(topology)} refuses that database (${answer.refusedDatabase}): set ${variable} to a database it has, such as /0.`,
    );
  }
  const advice = hint ?? `start it, or set ${variable} to one that runs`;
  throw new StartupError(
    `Redis at ${redisTarget(topology)} did not answer within ${REDIS_START_TIMEOUT_MS / 1000} s: ${advice}.`,
  );
}
