import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { demoMesh, startSimulator } from '../sim/index.js';
import { StartupError } from '../errors.js';
import { commandName } from './invocation.js';

function portOf(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new StartupError(`--port must be a whole number from 0 to 65535, not "${value}".`);
  }
  return port;
}

/** How this process was started, so the printed commands can be pasted as they are. */
function selfCommand(): string {
  const script = process.argv[1];
  const name = commandName(script);
  if (script === undefined || name !== undefined) return name ?? 'pod-bouncer';
  return `node ${relative(process.cwd(), script) || script}`;
}

/**
 * `pod-bouncer sim`: the Kubernetes API simulator with the demo's mesh, up until SIGINT/SIGTERM,
 * and the commands to point pod-bouncer at it. Readiness and ConfigMap sync are as slow as in
 * the demo, so that progress can be watched.
 */
export async function runSim(options: { port: string; kubeconfig?: string }): Promise<void> {
  const sim = await startSimulator({ port: portOf(options.port) });
  const dir = options.kubeconfig ? undefined : await mkdtemp(join(tmpdir(), 'pod-bouncer-sim-'));
  const kubeconfig = options.kubeconfig ? resolve(options.kubeconfig) : join(dir!, 'kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
  const directive = demoMesh(sim, { readinessDelayMs: 1500, configMapSyncDelayMs: 5000 });
  const self = selfCommand();
  const ref = `${directive.metadata.namespace}/${directive.metadata.name}`;
  // A token of its own: status and the other controls take a bearer token, whatever the mode.
  const token = randomBytes(16).toString('hex');
  process.stdout.write(
    [
      `Simulated Kubernetes API at ${sim.url}, with the demo mesh and the directive ${ref}.`,
      `KUBECONFIG=${kubeconfig}`,
      '',
      'In another shell:',
      `  KUBECONFIG=${kubeconfig} WEBHOOK_TOKENS=${token} ${self} all`,
      'And in a third:',
      `  export POD_BOUNCER_TOKEN=${token}`,
      `  ${self} send ${ref}`,
      `  ${self} status --watch ${ref}`,
      '',
      'Ctrl-C stops the simulator.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await sim.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}
