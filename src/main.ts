import closeWithGrace from 'close-with-grace';
import { assertAuthConfigured, type Config } from './config.js';
import type { Logger } from './logger.js';
import { buildOpsApp } from './ingress/ops-app.js';
import { recordBuildInfo } from './metrics/directives.js';
import { checkKubeAccess, checkRedis } from './preflight.js';
import { createKubeGateway, startServe, startWork, type Role } from './runtime.js';

export type RoleName = 'serve' | 'work' | 'all';

/**
 * Starts the chosen roles and stops them in reverse order on SIGTERM/SIGINT: the listener closes
 * first (no new events), then the worker finishes or hands back its in-flight jobs.
 */
export async function run(role: RoleName, config: Config, log: Logger): Promise<void> {
  if (role !== 'work') assertAuthConfigured(config);
  recordBuildInfo(role);
  // Say what is missing and stop, instead of starting and retrying in silence.
  checkKubeAccess(config);
  await checkRedis(config.redis);
  const kube = createKubeGateway(config);
  const roles: Role[] = [];
  if (role !== 'serve') roles.push(startWork(config, log, kube));
  if (role !== 'work') roles.push(await startServe(config, log, kube));
  else roles.push(await startOps(config, log));
  closeWithGrace({ delay: 25_000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'stopping after an unexpected error');
    else log.info({ signal }, 'stopping');
    for (const started of roles.reverse()) await started.close();
    await kube.close();
  });
}

/** The worker's own listener for liveness and metrics, on PORT like the API. */
async function startOps(config: Config, log: Logger): Promise<Role> {
  const app = await buildOpsApp(log);
  const url = await app.listen({ port: config.port, host: config.host });
  log.info({ url }, 'worker health and metrics are listening');
  return { close: () => app.close() };
}
