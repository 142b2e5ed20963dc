import { spawn } from 'node:child_process';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `pod-bouncer <args>` through the package's launcher, as a user does, to its end. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return runCommand(process.execPath, ['bin/pod-bouncer.js', ...args], env);
}

/** Runs any command to its end without blocking this process (which may host the api). */
export function runCommand(
  command: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The lines a command printed, without the empty ones. */
export const linesOf = (text: string): string[] => text.split('\n').filter((line) => line !== '');
