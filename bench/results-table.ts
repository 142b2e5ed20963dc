// Prints bench/results/latest.json's headline figures as a Markdown table (bench/README.md).
import { readFileSync } from 'node:fs';
import { resultsTable } from './lib/results-table.js';

const path = process.argv[2] ?? 'bench/results/latest.json';
let results: Record<string, unknown>;
try {
  results = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
} catch (error) {
  console.error(`Cannot read ${path} (${(error as Error).message}): run npm run bench first.`);
  process.exit(1);
}
process.stdout.write(resultsTable(results));
