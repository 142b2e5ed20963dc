#!/usr/bin/env node
// Runs the vitest suite and ends with the plain "N passed, N failed" line that CI reads.
// Extra arguments go to vitest (e.g. `--config vitest.topologies.config.ts`). With TEST_TALLY=<file>,
// counts add up across runs: the line printed is the sum of this run and the earlier ones.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'pod-bouncer-tests-'));
const report = join(dir, 'report.json');
const result = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const summary = JSON.parse(readFileSync(report, 'utf8'));
  passed = summary.numPassedTests;
  failed = summary.numFailedTests + (summary.numRuntimeErrorTestSuites ?? 0);
  skipped = summary.numPendingTests + (summary.numTodoTests ?? 0);
  // A file can fail with every test passed (a hook that timed out): it counts as one failure.
  for (const file of summary.testResults ?? []) {
    const tests = file.assertionResults ?? [];
    if (file.status === 'failed' && !tests.some((test) => test.status === 'failed')) failed += 1;
  }
} catch {
  failed = Math.max(failed, 1);
}
rmSync(dir, { recursive: true, force: true });
// The line never says "0 failed" for a run that failed.
if (result.status !== 0 && failed === 0) failed = 1;

const exitCode = result.status !== 0 || failed > 0 || passed === 0 ? 1 : 0;
const tally = process.env.TEST_TALLY;
if (tally) {
  const before =
    existsSync(tally) && readFileSync(tally, 'utf8').trim()
      ? JSON.parse(readFileSync(tally, 'utf8'))
      : {};
  passed += before.passed ?? 0;
  failed += before.failed ?? 0;
  skipped += before.skipped ?? 0;
  writeFileSync(tally, JSON.stringify({ passed, failed, skipped }));
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(exitCode);
