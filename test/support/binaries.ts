import { execFileSync } from 'node:child_process';

/**
 * The path of an external program a test needs (prometheus, promtool, chromium), or undefined.
 * .ci/run installs them, so in CI (CI set) a missing one is an error, never a skip; on a machine
 * without it the test is skipped, and says so on stderr, loudly.
 */
export function requiredBinary(name: string, install: string): string | undefined {
  let path: string | undefined;
  try {
    path =
      execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    path = undefined;
  }
  if (path !== undefined) return path;
  if (process.env.CI) {
    throw new Error(`${name} is not installed, and CI must run this test: ${install}`);
  }
  process.stderr.write(
    `\n*** SKIPPED: ${name} is not installed, so the tests that need it do not run here (${install}). ***\n\n`,
  );
  return undefined;
}
