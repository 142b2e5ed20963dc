// DESIGN §4 Gates: Prometheus load stays flat. 200 selectors (of 200 directives) wait on two
// distinct gates; the worker process asks Prometheus at most once per distinct gate per
// GATE_INTERVAL_SECONDS, however many jobs evaluate them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { registry } from '../../src/metrics/registry.js';
import { startFakePrometheus, type FakePrometheus } from '../support/fake-prometheus.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';

const SELECTORS = 200;
const INTERVAL_SECONDS = 2;

/** The sum of pod_bouncer_gate_verdicts_total's closed series. */
async function closedVerdicts(): Promise<number> {
  const metric = await registry.getSingleMetric('pod_bouncer_gate_verdicts_total')!.get();
  return metric.values
    .filter((value) => value.labels.verdict === 'closed')
    .reduce((sum, value) => sum + value.value, 0);
}

describe('Prometheus load under many gated selectors', () => {
  let h: Harness;
  let prom: FakePrometheus;

  beforeAll(async () => {
    prom = await startFakePrometheus();
    prom.firing.add('MeshDown');
    prom.value = 0;
    h = await startHarness('gates-load', {
      env: { PROMETHEUS_URL: prom.url, GATE_INTERVAL_SECONDS: String(INTERVAL_SECONDS) },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
  });

  it(`asks once per distinct gate per interval with ${SELECTORS} selectors waiting`, async () => {
    const names = Array.from({ length: SELECTORS }, (_, i) => `d${i}`);
    for (const [i, name] of names.entries()) {
      h.sim.addWorkload({
        namespace: 'load',
        name,
        kind: 'ReplicaSet',
        labels: { app: name },
        replicas: 1,
      });
      const selector = { namespace: 'load', labels: { app: name } };
      const gate = i % 2 === 0 ? { alerts: 'MeshDown' } : { query: 'mesh_ok', min: 1 };
      h.sim.applyDirective({
        ...directive('load', name, [selector]),
        spec: { gates: [gate], podsToBounce: [selector] },
      });
    }
    for (const name of names) {
      expect((await h.post({ directive: { namespace: 'load', name } })).status).toBe(202);
    }
    const gated = () =>
      names.filter(
        (name) =>
          (h.sim.getDirective('load', name) as any)?.status?.conditions?.find(
            (c: any) => c.type === 'Ready',
          )?.reason === 'Gated',
      ).length;
    await eventually(
      `${SELECTORS} selectors Gated`,
      () => (gated() === SELECTORS ? true : undefined),
      120_000,
    );

    // From here on: every job evaluates its gate about once an interval; Prometheus is asked
    // once per gate per interval, whatever the number of jobs.
    prom.reset();
    const verdictsBefore = await closedVerdicts();
    const started = Date.now();
    await eventually(
      'each job to evaluate its gate three more times',
      async () => ((await closedVerdicts()) - verdictsBefore >= 3 * SELECTORS ? true : undefined),
      120_000,
    );
    const elapsed = (Date.now() - started) / 1000;
    const evaluations = (await closedVerdicts()) - verdictsBefore;
    const counts = prom.counts();
    // An upper bound only: a slow machine makes the window longer, never the bound tighter.
    const allowed = Math.floor(elapsed / INTERVAL_SECONDS) + 1;
    console.log(
      `${SELECTORS} gated selectors, 2 distinct gates, GATE_INTERVAL_SECONDS=${INTERVAL_SECONDS}: ` +
        `${evaluations} gate evaluations in ${elapsed.toFixed(1)} s, Prometheus requests ` +
        `alerts=${counts['/api/v1/alerts'] ?? 0} query=${counts['/api/v1/query'] ?? 0} (bound ${allowed} each)`,
    );
    expect(counts['/api/v1/alerts'] ?? 0).toBeLessThanOrEqual(allowed);
    expect(counts['/api/v1/query'] ?? 0).toBeLessThanOrEqual(allowed);
    expect(counts['/api/v1/alerts']).toBeGreaterThan(0);
    // Nothing was bounced while the gates were closed.
    expect(h.sim.deletedPods().filter((pod) => pod.namespace === 'load')).toEqual([]);
  }, 300_000);
});
