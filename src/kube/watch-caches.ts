import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { loadKubeConfig } from './client.js';
import type { KubeGateway } from './gateway.js';
import { DirectiveCache } from './informer-directives.js';
import { ClusterView } from './watch-view.js';
import { KubeWatches } from './watches.js';

/** A process's watch caches: started lazily per namespace, stopped together. */
export interface WatchCaches {
  watches: KubeWatches;
  directives: DirectiveCache;
  view: ClusterView;
  close(): Promise<void>;
}

/**
 * Builds the shared watch caches of one process (api or worker). Each process keeps its own:
 * they are caches of the API server, never a source of truth, so N replicas need no coordination.
 */
export function createWatchCaches(config: Config, kube: KubeGateway, log: Logger): WatchCaches {
  const kubeConfig = loadKubeConfig({
    ...(config.kubeconfig ? { kubeconfig: config.kubeconfig } : {}),
    ...(config.kubeContext ? { context: config.kubeContext } : {}),
  });
  const watches = new KubeWatches(kubeConfig, log.child({ component: 'watches' }));
  const directives = new DirectiveCache(kube, watches);
  return {
    watches,
    directives,
    view: new ClusterView(watches),
    async close(): Promise<void> {
      directives.close();
      await watches.close();
    },
  };
}
