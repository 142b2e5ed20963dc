import { spawn, type ChildProcess } from 'node:child_process';

/** A pod-bouncer child process (`node dist/cli.js <role>`), as an operator runs it. */
export interface CliProcess {
  child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
}

/** Starts `node dist/cli.js <role>` with the given environment (dist must be built). */
export function startCli(role: string, env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, ['dist/cli.js', role], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => text };
}

/** Kills a child if it still runs, and waits for it to be gone. */
export async function stopCli(cli: CliProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill(signal);
  await cli.exited;
}
