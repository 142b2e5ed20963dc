import { loadKubeConfig, type ConnectionReusingKubeConfig } from './client.js';
import { KubeGateway } from './gateway.js';
import {
  checkContexts,
  kubeconfigSource,
  unloadable,
  type KubeAccess,
} from './kubeconfig-checks.js';
import type { KubeconfigContexts } from './kubeconfig-file.js';

/** What the gateway is opened with: the access, and the client-side rate (KUBE_QPS, KUBE_BURST). */
export interface GatewaySettings extends KubeAccess {
  readonly kubeQps: number;
  readonly kubeBurst: number;
}

/**
 * The process's one door to the API server: one KubeConfig (and its kept-alive connections),
 * one rate limiter, and, through `sharedWatchCaches`, one set of watch caches for every role
 * started on it. Close it after the roles (`kube.close()`).
 */
export function createKubeGateway(config: GatewaySettings): KubeGateway {
  return new KubeGateway(loadKubeConfig(config), { qps: config.kubeQps, burst: config.kubeBurst });
}

function contextsOf(kubeConfig: ConnectionReusingKubeConfig): KubeconfigContexts {
  return {
    names: () => kubeConfig.getContexts().map((context) => context.name),
    hasContext: (name) => kubeConfig.getContextObject(name) !== null,
    currentHasCluster: () => kubeConfig.getCurrentCluster() !== null,
  };
}

/**
 * The gateway of a `pod-bouncer` process. Start-up read the kubeconfig without client-node
 * (`preflight.ts`); client-node's own reading is held to the same sentences here
 * (`kubeconfig-checks.ts`), so that a file it refuses still ends the process with one
 * (StartupError), not with a request that fails later.
 */
export function openKubeGateway(config: GatewaySettings): KubeGateway {
  const source = kubeconfigSource(config);
  let kubeConfig: ConnectionReusingKubeConfig;
  try {
    kubeConfig = loadKubeConfig(config);
  } catch (error) {
    throw unloadable(source, error);
  }
  checkContexts(config, source, contextsOf(kubeConfig));
  return new KubeGateway(kubeConfig, { qps: config.kubeQps, burst: config.kubeBurst });
}
