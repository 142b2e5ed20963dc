import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { run, type RoleName } from './main.js';

const USAGE = `usage: pod-bouncer <serve|work|all|demo>
  serve  HTTP only (events endpoint, admin routes, health)
  work   worker only (bounces pods)
  all    both in one process
  demo   all, against an embedded simulated cluster, with a sample event`;

async function main(argv: string[]): Promise<void> {
  const command = argv[0];
  if (command === '--help' || command === '-h' || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    process.exitCode = command === undefined ? 2 : 0;
    return;
  }
  if (command === 'demo') {
    const { runDemo } = await import('./demo/run.js');
    process.exitCode = await runDemo(process.env);
    return;
  }
  if (command !== 'serve' && command !== 'work' && command !== 'all') {
    process.stderr.write(`Unknown command "${command}".\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const config = loadConfig();
  await run(command satisfies RoleName, config, createLogger(config.logLevel));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `pod-bouncer failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
