import { describe, expect, it } from 'vitest';
import { resultsTable } from '../../bench/lib/results-table.js';

describe('the benchmark results table', () => {
  const results = {
    'wakeup.watch.medianMs': 6,
    'api.perPod': 1,
    'ingest.newVsNaive': 0.7812,
    machine: { cores: 2, cpu: 'AMD EPYC', node: 'v24.21.0' },
    at: '2026-12-01T10:00:00.000Z',
    quick: true,
  };
  const table = resultsTable(results);

  it('shows each measured figure with its unit and target', () => {
    expect(table).toContain('| wake-up, watch: median | 6 ms | ≤ 50 |');
    expect(table).toContain('| API requests per bounced pod | 1 | ≤ 1.05 |');
    expect(table).toContain('| ingest, new events vs naive | 0.78 × | ≥ 1.0 |');
  });

  it('marks a figure the run did not measure with a dash', () => {
    expect(table).toContain('| scale, wall time vs ideal | — | ≤ 1.2 |');
  });

  it('says when and where the run was made', () => {
    expect(table.split('\n')[0]).toBe(
      'Run of 2026-12-01T10:00:00.000Z (--quick) on 2 cores (AMD EPYC), Node v24.21.0:',
    );
  });
});
