// The alert rules and the Grafana dashboard of the chart: promtool checks and unit-tests the rules
// (test/prometheus/rules.test.yaml), and every PromQL expression names only metrics pod-bouncer
// registers.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/metrics/registry.js';
import { requiredBinary } from '../support/binaries.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const values = parse(read('charts/pod-bouncer/values.yaml')) as {
  prometheusRule: Record<string, number>;
};

/** The rules file as the chart's PrometheusRule template renders it with values.yaml's defaults. */
export function renderRules(namespace = 'pod-bouncer'): string {
  const pr = values.prometheusRule;
  return read('charts/pod-bouncer/files/prometheus-rules.yaml')
    .replaceAll('__STUCK_SECONDS__', String(pr.stuckMinutes! * 60))
    .replaceAll('__GATED_SECONDS__', String(pr.gatedMinutes! * 60))
    .replaceAll('__QUEUE_DEPTH__', String(pr.queueDepthThreshold))
    .replaceAll('__QUEUE_FOR__', `${pr.queueBackedUpMinutes}m`)
    .replaceAll('__WORKER_ABSENT_FOR__', `${pr.workerAbsentMinutes}m`)
    .replaceAll('__NAMESPACE__', namespace);
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
}

const rules = (parse(renderRules()) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (group) => group.rules,
);

interface Panel {
  title: string;
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(read('charts/pod-bouncer/files/grafana-dashboard.json')) as {
  panels: Panel[];
  templating: { list: { query?: string | { query: string } }[] };
};

/** Every sample name pod-bouncer's registry exposes (histograms with their three series). */
async function exportedNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
    }
    if (String(metric.type) === 'summary') {
      for (const suffix of ['_sum', '_count']) names.add(metric.name + suffix);
    }
  }
  return names;
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names an expression selects: identifiers left once strings, label matchers, ranges, grouping clauses, Grafana variables and function calls are taken out. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = [...bare.matchAll(/(?<![\w.:])([A-Za-z_:][\w:]*)(?![\w:]|\s*\()/g)].map(
    (m) => m[1]!,
  );
  return names.filter((name) => !KEYWORDS.has(name.toLowerCase()));
}

const dashboardExprs = [
  ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
  ...dashboard.templating.list.flatMap((variable) =>
    typeof variable.query === 'object' ? [variable.query.query] : [],
  ),
];

describe('metric names in the alert rules and the dashboard', () => {
  it('finds the names of an expression', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le) (rate(a_bucket{x=~"y|z"}[$__rate_interval]))) > 5 and on (n) b unless c offset 5m',
      ),
    ).toEqual(['a_bucket', 'b', 'c']);
    expect(metricNames('label_values(pod_bouncer_build_info, namespace)')).toEqual([
      'pod_bouncer_build_info',
      'namespace',
    ]);
  });

  it('the rules name only metrics src/metrics registers', async () => {
    const known = await exportedNames();
    expect(rules.length).toBeGreaterThanOrEqual(4);
    const unknown = rules.flatMap((rule) => metricNames(rule.expr).filter((n) => !known.has(n)));
    expect(unknown).toEqual([]);
  });

  it('the dashboard names only metrics src/metrics registers', async () => {
    const known = await exportedNames();
    expect(dashboardExprs.length).toBeGreaterThanOrEqual(10);
    // label_values(metric, label): the second argument is a label.
    const exprs = dashboardExprs.map((e) => e.replace(/^label_values\(([^,]+),.*\)$/, '$1'));
    const unknown = exprs.flatMap((expr) => metricNames(expr).filter((n) => !known.has(n)));
    expect(unknown).toEqual([]);
  });

  it('the dashboard shows runs, pods bounced, waits, gates, API requests and queue depth', () => {
    const all = dashboardExprs.join('\n');
    for (const name of [
      'pod_bouncer_status_transitions_total',
      'pod_bouncer_directive_state',
      'pod_bouncer_pods_bounced_total',
      'pod_bouncer_wait_duration_seconds_bucket',
      'pod_bouncer_events_received_total',
      'pod_bouncer_kubernetes_requests_total',
      'pod_bouncer_queue_depth',
      'pod_bouncer_gate_verdicts_total',
      'pod_bouncer_directive_gated_since_timestamp_seconds',
    ]) {
      expect(all).toContain(name);
    }
  });
});

const promtool = requiredBinary('promtool', 'apt-get install -y prometheus');

describe.skipIf(promtool === undefined)('the alert rules under promtool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pod-bouncer-rules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'rules.yaml'), renderRules());
  copyFileSync(join(root, 'test/prometheus/rules.test.yaml'), join(dir, 'rules.test.yaml'));
  const run = (...args: string[]): string =>
    execFileSync(promtool!, args, { cwd: dir, encoding: 'utf8', stdio: 'pipe' });

  it('promtool check rules accepts them', () => {
    expect(run('check', 'rules', 'rules.yaml')).toMatch(/SUCCESS: 5 rules found/);
  });

  it('promtool test rules: each alert fires on its series and not otherwise', () => {
    expect(run('test', 'rules', 'rules.test.yaml')).toMatch(/SUCCESS/);
    const tested = new Set(
      [...read('test/prometheus/rules.test.yaml').matchAll(/alertname: (\w+)/g)].map((m) => m[1]),
    );
    expect([...tested].sort()).toEqual(rules.map((rule) => rule.alert).sort());
  });
});
