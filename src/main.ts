import closeWithGrace from 'close-with-grace';
import { assertAuthConfigured, type Config } from './config.js';
import type { KubeGateway } from './kube/gateway.js';
import type { Logger } from './logger.js';
import { buildOpsApp } from './ingress/ops-app.js';
import { recordBuildInfo } from './metrics/directives.js';
import { checkKubeAccess, checkRedis } from './preflight.js';
import type { Role } from './runtime/role.js';
import { startServe } from './runtime/serve.js';

export type RoleName = 'serve' | 'work' | 'all';

/**
 * The process's gateway, opened once on first use. client-node is imported only then: the worker
 * opens it before it starts, `serve` once a request needs it (see DeferredKube).
 */
function gatewayOnDemand(config: Config): {
  open: () => Promise<KubeGateway>;
  close: () => Promise<void>;
} {
  let opening: Promise<KubeGateway> | undefined;
  const open = (): Promise<KubeGateway> =>
    (opening ??= import('./kube/open-gateway.js').then(({ openKubeGateway }) =>
      openKubeGateway(config),
    ));
  return {
    open,
    async close(): Promise<void> {
      const gateway = await opening?.catch(() => undefined);
      await gateway?.close();
    },
  };
}

export interface Running {
  /**
   * Rejects when a part that starts after the listener cannot start: a kubeconfig that client-node
   * refuses although start-up read it, said as a StartupError. The process must then end.
   */
  failure: Promise<never>;
}

/**
 * Starts the chosen roles and stops them in reverse order on SIGTERM/SIGINT: the listener closes
 * first (no new events), then the worker finishes or hands back its in-flight jobs.
 */
export async function run(role: RoleName, config: Config, log: Logger): Promise<Running> {
  if (role !== 'work') assertAuthConfigured(config);
  recordBuildInfo(role);
  // Say what is missing and stop, instead of starting and retrying in silence.
  checkKubeAccess(config);
  await checkRedis(config.redis);
  const kube = gatewayOnDemand(config);
  const roles: Role[] = [];
  if (role !== 'serve') {
    const { startWork } = await import('./runtime/work.js');
    roles.push(startWork(config, log, await kube.open()));
  }
  const serve = role !== 'work' ? await startServe(config, log, kube.open) : undefined;
  roles.push(serve ?? (await startOps(config, log)));
  closeWithGrace({ delay: 25_000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'stopping after an unexpected error');
    else log.info({ signal }, 'stopping');
    for (const started of roles.reverse()) await started.close();
    await kube.close();
  });
  // The api loads its Kubernetes side on first use, after it listens: a kubeconfig that
  // client-node refuses still ends the process with its sentence (a StartupError) before a request
  // that needs the API server is answered (probes, metrics and the OpenAPI document answer).
  return { failure: serve?.kubeFailure ?? new Promise<never>(() => undefined) };
}

/** The worker's own listener for liveness and metrics, on PORT like the API. */
async function startOps(config: Config, log: Logger): Promise<Role> {
  const app = await buildOpsApp(log);
  const url = await app.listen({ port: config.port, host: config.host });
  log.info({ url }, 'worker health and metrics are listening');
  return { close: () => app.close() };
}
