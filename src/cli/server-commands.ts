import module from 'node:module';
import type { Command } from 'commander';
import { DEMO_ENV, envHelp, ROLE_ENV } from './env-help.js';
import { exitWith } from './failure.js';

const ROLES = [
  ['serve', 'the HTTP api only: events endpoint, directive routes, health, metrics'],
  ['work', 'the worker only: bounces pods (health and metrics on PORT)'],
  ['all', 'the api and the worker in one process (what npm start runs)'],
] as const;

/** Heavy modules (fastify, BullMQ, client-node) load only once a server command runs. */
async function startRole(role: 'serve' | 'work' | 'all'): Promise<void> {
  const [{ loadConfig }, { createLogger }, { run }] = await Promise.all([
    import('../config.js'),
    import('../logger.js'),
    import('../main.js'),
  ]);
  const config = loadConfig();
  const running = await run(role, config, createLogger(config.logLevel));
  // Node writes the compile cache at exit; a server killed hard would never write it.
  module.flushCompileCache?.();
  // The api loads its Kubernetes side on first use; if client-node then refuses the kubeconfig,
  // the process ends with the start-up sentence like any other start-up error.
  running.failure.catch(exitWith);
}

/** `serve`, `work`, `all`, `demo` and `sim`: the processes pod-bouncer runs as. */
export function registerServerCommands(
  program: Command,
  setExitCode: (code: number) => void,
): void {
  for (const [role, description] of ROLES) {
    program
      .command(role)
      .description(description)
      .addHelpText('after', envHelp(ROLE_ENV[role]))
      .action(() => startRole(role));
  }
  program
    .command('demo')
    .description(
      'the whole flow on an embedded simulated cluster, with a sample event, until FINISHED',
    )
    .option(
      '--watch-directives',
      'controller mode (WATCH_DIRECTIVES): apply the directive instead of posting an event',
    )
    .addHelpText('after', envHelp(DEMO_ENV))
    .action(async (options: { watchDirectives?: boolean }) => {
      const { runDemo } = await import('../demo/run.js');
      setExitCode(
        await runDemo(process.env, { watchDirectives: options.watchDirectives === true }),
      );
    });
  program
    .command('sim')
    .description('the simulated cluster alone, with the demo mesh; prints the KUBECONFIG to use')
    .option('--port <port>', 'port of the simulated API server (default: any free port)', '0')
    .option('--kubeconfig <file>', 'where to write its kubeconfig (default: a temporary file)')
    .addHelpText(
      'after',
      '\nStays up until Ctrl-C. Then, in another shell, with the path and token it printed:\n' +
        '  KUBECONFIG=<the path> WEBHOOK_TOKENS=<the token> pod-bouncer all\n' +
        '  export POD_BOUNCER_TOKEN=<the token>\n' +
        '  pod-bouncer send istio-system/mesh-certs && pod-bouncer status --watch istio-system/mesh-certs\n',
    )
    .action(async (options: { port: string; kubeconfig?: string }) => {
      const { runSim } = await import('./sim.js');
      await runSim(options);
    });
}
