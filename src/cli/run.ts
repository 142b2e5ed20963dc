import { buildProgram, commanderExitCode, CommanderError } from './program.js';

/**
 * Errors a person can act on, printed as their one sentence without a stack. Matched by name, so
 * that `--help` does not load the modules that define them (client-node among them).
 */
const PLAIN = new Set(['ClientError', 'CredentialsError', 'StartupError', 'ConfigError']);

function plainSentence(error: unknown): string | undefined {
  return error instanceof Error && PLAIN.has(error.name) ? error.message : undefined;
}

/**
 * Runs one command line. Exit codes: 0 done, 1 an error (its sentence on stderr), 2 a usage
 * error. Server commands keep running after this returns; their exit code is set on shutdown.
 */
export async function runCli(argv: string[]): Promise<void> {
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
    const sentence = plainSentence(error);
    process.stderr.write(
      `${sentence ?? `pod-bouncer failed: ${error instanceof Error ? error.message : String(error)}`}\n`,
    );
    // A config error is a usage error of the environment (2); anything else that stops us is 1.
    process.exit(error instanceof Error && error.name === 'ConfigError' ? 2 : 1);
  }
}
