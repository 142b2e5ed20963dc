/**
 * The headline figures of a `bench/results/latest.json` as the Markdown table bench/README.md
 * shows: one row per figure with its target, from the flat dotted keys `bench/run.ts` writes. A
 * figure a run did not measure (a section left out with `--only`) is a dash.
 */

interface Row {
  figure: string;
  key: string;
  unit: string;
  target: string;
}

const ROWS: Row[] = [
  { figure: 'wake-up, watch: median', key: 'wakeup.watch.medianMs', unit: 'ms', target: '≤ 50' },
  { figure: 'wake-up, watch: p99', key: 'wakeup.watch.p99Ms', unit: 'ms', target: '' },
  { figure: 'wake-up, polling: median', key: 'wakeup.polling.medianMs', unit: 'ms', target: '' },
  { figure: 'API requests per bounced pod', key: 'api.perPod', unit: '', target: '≤ 1.05' },
  { figure: 'API requests per selector', key: 'api.perSelector', unit: '', target: '≤ 4' },
  {
    figure: 'API requests per selector, all in',
    key: 'api.perSelectorAllIn',
    unit: '',
    target: '≤ 4',
  },
  { figure: 'ingest, new events', key: 'ingest.newReqPerSec', unit: 'req/s', target: '' },
  { figure: 'ingest, new events vs naive', key: 'ingest.newVsNaive', unit: '×', target: '≥ 1.0' },
  {
    figure: 'ingest, duplicates vs bare',
    key: 'ingest.duplicateVsBare',
    unit: '×',
    target: '≥ 0.6',
  },
  { figure: 'ingest, ignored vs bare', key: 'ingest.ignoredVsBare', unit: '×', target: '≥ 0.6' },
  { figure: 'scale, wall time vs ideal', key: 'scale.ratioToIdeal', unit: '×', target: '≤ 1.2' },
  {
    figure: "scale, worker peak RSS (the chart's heap cap)",
    key: 'scale.peakRssMb',
    unit: 'MB',
    target: '≤ 200',
  },
  {
    figure: "scale, worker CPU per pod (the image's node flags)",
    key: 'scale.cpuPerPodMs',
    unit: 'ms',
    target: '≤ 0.5',
  },
  {
    figure: 'scale at KUBE_QPS, wall vs requests/QPS',
    key: 'scale.qpsBound.ratio',
    unit: '×',
    target: '≤ 1.1',
  },
];

function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '?';
}

function shown(value: unknown, unit: string): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  const number = Number.isInteger(value) ? String(value) : value.toFixed(2);
  return unit === '' ? number : `${number} ${unit}`;
}

/** The table, headed by when and where the run was made. */
export function resultsTable(results: Record<string, unknown>): string {
  const machine = (results.machine ?? {}) as Record<string, unknown>;
  const when = typeof results.at === 'string' ? results.at : 'an unknown time';
  const quick = results.quick === true ? ' (--quick)' : '';
  const lines = [
    `Run of ${when}${quick} on ${text(machine.cores)} cores (${text(machine.cpu)}), Node ${text(machine.node)}:`,
    '',
    '| figure | value | target |',
    '| --- | --- | --- |',
    ...ROWS.map(
      (row) => `| ${row.figure} | ${shown(results[row.key], row.unit)} | ${row.target} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
