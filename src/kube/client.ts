import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig, type RequestContext } from '@kubernetes/client-node';
import type { KubeAccess } from './kubeconfig-checks.js';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/**
 * undici closes a connection after any request that carries a body its method does not expect,
 * and a DELETE with `preconditions` is one: each pod deletion would cost a new connection (and a
 * TLS handshake). The Kubernetes API server reads DELETE bodies, so the connection stays safe to
 * reuse; `reset: false` tells undici so.
 */
const keepAliveAfterDelete: Parameters<Dispatcher['compose']>[0] =
  (dispatch) => (options, handler) =>
    dispatch(options.method === 'DELETE' ? { ...options, reset: false } : options, handler);

/** How long shutdown waits for the requests still in flight before it cuts them. */
const CLOSE_GRACE_MS = 2000;

type Counters = Record<string, { running?: number; pending?: number; queued?: number }>;

/** Whether undici's counters (an Agent's `stats`, per origin) show requests not yet ended. */
function inFlight(dispatcher: Dispatcher): boolean {
  const stats = (dispatcher as { stats?: Counters }).stats ?? {};
  return Object.values(stats).some(
    (origin) => (origin.running ?? 0) + (origin.pending ?? 0) + (origin.queued ?? 0) > 0,
  );
}

// undici's `destroy` after `close` finds nothing left to cut (close forgets the connections), so
// the choice is made first: close when idle, destroy when requests outlive the grace.
async function closeWithin(dispatcher: Dispatcher, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (inFlight(dispatcher) && Date.now() < deadline) await sleep(50);
  await (inFlight(dispatcher) ? dispatcher.destroy() : dispatcher.close());
}

/**
 * client-node 2.0 builds a new undici Agent for every request whose cluster has TLS settings (a
 * CA, client certificates, or `insecure-skip-tls-verify`), so every request opened a new
 * connection (and TLS handshake). This keeps the first dispatcher per cluster and user and hands
 * it to every later request, so connections are kept alive and reused, as client-node already
 * does for its https.Agent path. Authentication (headers, tokens, their refresh) stays
 * client-node's, request by request.
 */
export class ConnectionReusingKubeConfig extends KubeConfig {
  private readonly dispatchers = new Map<string, Dispatcher>();
  private readonly kept = new WeakSet<Dispatcher>();
  /** The dispatchers as client-node built them, for their request counters and shutdown. */
  private readonly agents = new Map<string, Dispatcher>();

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const created = context.getDispatcher();
    // Already the kept one when `keptDispatcher` below stood in for client-node's own.
    if (created === undefined || this.kept.has(created)) return;
    context.setDispatcher(this.keep(created));
  }

  /** The kept dispatcher of the current cluster and user, if one was kept. */
  keptDispatcher(): Dispatcher | undefined {
    return this.dispatchers.get(this.dispatcherKey());
  }

  /**
   * Closes the kept connections (on shutdown) once their requests have ended, or cuts them after
   * `graceMs`: a watch stream that started while the roles closed would otherwise hold shutdown
   * until the API server ends it, minutes later.
   */
  async closeConnections(graceMs = CLOSE_GRACE_MS): Promise<void> {
    const agents = [...this.agents.values()];
    this.dispatchers.clear();
    this.agents.clear();
    await Promise.allSettled(agents.map((agent) => closeWithin(agent, graceMs)));
  }

  private dispatcherKey(): string {
    const cluster = this.getCurrentCluster();
    return JSON.stringify([cluster?.name, cluster?.server, this.getCurrentUser()?.name]);
  }

  private keep(created: Dispatcher): Dispatcher {
    const key = this.dispatcherKey();
    const kept = this.dispatchers.get(key);
    // One built for this request has opened nothing yet; it is simply dropped.
    if (kept !== undefined) return kept;
    const reusing = created.compose(keepAliveAfterDelete);
    this.dispatchers.set(key, reusing);
    this.agents.set(key, created);
    this.kept.add(reusing);
    return reusing;
  }
}

/**
 * client-node builds the Agent it lends in `createDispatcher` (not part of its typed interface):
 * once a dispatcher is kept for the cluster and user, that one is lent instead of building one
 * to drop, which a busy worker would do for every request. Should client-node rename the
 * method, this stands unused and the swap in `applySecurityAuthentication` still keeps one.
 */
const prototype = KubeConfig.prototype as unknown as Record<string, unknown>;
const createDispatcher = prototype.createDispatcher;
if (typeof createDispatcher === 'function') {
  Object.defineProperty(ConnectionReusingKubeConfig.prototype, 'createDispatcher', {
    value(this: ConnectionReusingKubeConfig, ...args: unknown[]): unknown {
      return (
        this.keptDispatcher() ??
        (createDispatcher as (...a: unknown[]) => unknown).apply(this, args)
      );
    },
  });
}

/**
 * Loads the process's API access, once: an explicit kubeconfig file (KUBECONFIG) or client-node's
 * default search (in-cluster service account, else ~/.kube/config), then the chosen context if
 * one is named (KUBE_CONTEXT).
 */
export function loadKubeConfig(config: KubeAccess): ConnectionReusingKubeConfig {
  const kubeConfig = new ConnectionReusingKubeConfig();
  if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
  else kubeConfig.loadFromDefault();
  if (config.kubeContext) kubeConfig.setCurrentContext(config.kubeContext);
  return kubeConfig;
}
