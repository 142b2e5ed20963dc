/**
 * Errors a person can act on, printed as their one sentence without a stack. Matched by name, so
 * that `--help` does not load the modules that define them (client-node among them).
 */
const PLAIN = new Set(['ClientError', 'CredentialsError', 'StartupError', 'ConfigError']);

function plainSentence(error: unknown): string | undefined {
  return error instanceof Error && PLAIN.has(error.name) ? error.message : undefined;
}

/**
 * Ends the process on an error that stops a command: its sentence (or its message) on stderr,
 * exit code 2 for a configuration error (a usage error of the environment), 1 for anything else.
 */
export function exitWith(error: unknown): never {
  const sentence = plainSentence(error);
  process.stderr.write(
    `${sentence ?? `pod-bouncer failed: ${error instanceof Error ? error.message : String(error)}`}\n`,
  );
  process.exit(error instanceof Error && error.name === 'ConfigError' ? 2 : 1);
}
