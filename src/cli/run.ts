import { exitWith } from './failure.js';
import { buildProgram, commanderExitCode, CommanderError } from './program.js';

/**
 * Runs one command line. Exit codes: 0 done, 1 an error (its sentence on stderr), 2 a usage
 * error. Server commands keep running after this returns; their exit code is set on shutdown.
 */
export async function runCli(argv: string[]): Promise<void> {
  // A reader that stops early (`pod-bouncer --help | head`) closes the pipe: nothing more to say.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  const program = buildProgram((code) => {
    process.exitCode = code;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = commanderExitCode(error);
      return;
    }
    exitWith(error);
  }
}
