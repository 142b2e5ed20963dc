import type { Logger } from '../logger.js';
import type { KubeGateway } from './gateway.js';
import { DirectiveCache } from './informer-directives.js';
import { ClusterView } from './watch-view.js';
import { CLUSTER_WIDE_PODS_AFTER, KubeWatches, type WatchSettings } from './watches.js';

/**
 * How a process watches pods (and ReplicaSets) given the namespaces it may touch: past
 * CLUSTER_WIDE_PODS_AFTER namespaces, cluster-wide, but only when every namespace is allowed
 * (`ALLOWED_NAMESPACES` unset or `*`): otherwise the cache would hold pods of namespaces that are
 * none of its business.
 */
export function watchSettingsFor(config: {
  allowedNamespaces?: readonly string[] | undefined;
}): Partial<WatchSettings> {
  return config.allowedNamespaces === undefined
    ? { clusterWidePodsAfter: CLUSTER_WIDE_PODS_AFTER }
    : {};
}

/** A process's watch caches: started lazily per namespace, stopped together. */
export interface WatchCaches {
  watches: KubeWatches;
  directives: DirectiveCache;
  view: ClusterView;
  close(): Promise<void>;
}

interface Shared {
  caches: WatchCaches;
  users: number;
}

/** One set of caches per gateway, i.e. per process: `all` runs the api and the worker on it. */
const shared = new WeakMap<KubeGateway, Shared>();

/**
 * Builds watch caches on the gateway's own API access. Each process keeps its own: they are
 * caches of the API server, never a source of truth, so N replicas need no coordination.
 */
export function createWatchCaches(
  kube: KubeGateway,
  log: Logger,
  settings: Partial<WatchSettings> = {},
): WatchCaches {
  const watches = new KubeWatches(kube.kubeConfig, log.child({ component: 'watches' }), settings);
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

/**
 * The process's watch caches, shared by every role started on the same gateway (so `all` watches
 * a namespace once, not once for the api and once for the worker). Each caller gets a handle;
 * the caches stop when the last handle is closed.
 */
export function sharedWatchCaches(
  kube: KubeGateway,
  log: Logger,
  settings: Partial<WatchSettings> = {},
): WatchCaches {
  let entry = shared.get(kube);
  if (entry === undefined) {
    entry = { caches: createWatchCaches(kube, log, settings), users: 0 };
    shared.set(kube, entry);
  }
  entry.users += 1;
  const held = entry;
  let closed = false;
  return {
    ...held.caches,
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      held.users -= 1;
      if (held.users > 0) return;
      shared.delete(kube);
      await held.caches.close();
    },
  };
}
