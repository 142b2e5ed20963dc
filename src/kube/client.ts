import { KubeConfig, type RequestContext } from '@kubernetes/client-node';

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

/**
 * client-node 2.0 builds a new undici Agent for every request whose cluster has TLS settings (a
 * CA, client certificates, or `insecure-skip-tls-verify`), so every request opened a new
 * connection (and TLS handshake). This keeps the first dispatcher per cluster and user and hands
 * it to every later request, so connections are kept alive and reused, as client-node already
 * does for its https.Agent path.
 */
export class ConnectionReusingKubeConfig extends KubeConfig {
  private readonly dispatchers = new Map<
    string,
    NonNullable<ReturnType<RequestContext['getDispatcher']>>
  >();

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const created = context.getDispatcher();
    if (created === undefined) return;
    const cluster = this.getCurrentCluster();
    const key = JSON.stringify([cluster?.name, cluster?.server, this.getCurrentUser()?.name]);
    const kept = this.dispatchers.get(key);
    if (kept === undefined) {
      const reusing = created.compose(keepAliveAfterDelete);
      this.dispatchers.set(key, reusing);
      context.setDispatcher(reusing);
      return;
    }
    // The one just built has opened nothing yet; it is simply dropped.
    context.setDispatcher(kept);
  }

  /** Closes the kept connections (on shutdown). */
  async closeConnections(): Promise<void> {
    const dispatchers = [...this.dispatchers.values()];
    this.dispatchers.clear();
    await Promise.allSettled(dispatchers.map((dispatcher) => dispatcher.close()));
  }
}

/**
 * Loads the process's API access, once: an explicit kubeconfig file (KUBECONFIG) or client-node's
 * default search (in-cluster service account, else ~/.kube/config), then the chosen context if
 * one is named (KUBE_CONTEXT).
 */
export function loadKubeConfig(config: {
  kubeconfig?: string | undefined;
  kubeContext?: string | undefined;
}): ConnectionReusingKubeConfig {
  const kubeConfig = new ConnectionReusingKubeConfig();
  if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
  else kubeConfig.loadFromDefault();
  if (config.kubeContext) kubeConfig.setCurrentContext(config.kubeContext);
  return kubeConfig;
}
