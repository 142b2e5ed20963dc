// Gates against a real Prometheus that scrapes an exporter this test controls: the gauge up fires
// an alert and no further batch goes out, the gauge down resolves it and the run finishes with
// every pod bounced once; a query gate without a sample holds until the gauge is inside its
// bounds; Prometheus killed mid-run holds every batch until it answers again on the same port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { registry } from '../../src/metrics/registry.js';
import { requiredBinary } from '../support/binaries.js';
import { expectEachDeletedOnce, podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import {
  startExporter,
  startPrometheus,
  type Exporter,
  type OwnPrometheus,
} from '../support/prometheus-server.js';

const prometheus = requiredBinary('prometheus', 'apt-get install -y prometheus');

const RULES = `groups:
  - name: mesh
    interval: 1s
    rules:
      - alert: MeshErrors
        expr: mesh_errors > 0
`;

describe.skipIf(prometheus === undefined)('gates on a scraped gauge', () => {
  let h: Harness;
  let prom: OwnPrometheus;
  let exporter: Exporter;
  const earlier: string[] = [];

  beforeAll(async () => {
    exporter = await startExporter();
    exporter.set('mesh_errors', 0);
    prom = await startPrometheus(prometheus!, RULES, { scrapeTargets: [exporter.target] });
    // Once through the whole path (scrape, rule, alert) before any run relies on it.
    exporter.set('mesh_errors', 1);
    await prom.alertsAre({ MeshErrors: 'firing' });
    exporter.set('mesh_errors', 0);
    await prom.alertsAre({ MeshErrors: 'inactive' });
    h = await startHarness('gates-exporter', {
      env: { PROMETHEUS_URL: prom.url, GATE_INTERVAL_SECONDS: '1' },
    });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
    await exporter?.close();
  });

  /** Three pods, one per batch, with a soak after each batch that gives Prometheus time to see. */
  function setUp(namespace: string, gates: object[]): string[] {
    h.sim.addWorkload({
      namespace,
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'app' },
      replicas: 3,
      readinessDelayMs: 50,
    });
    const selector = { namespace, labels: { app: 'app' }, maxUnavailable: 1, soakSeconds: 4 };
    h.sim.applyDirective({
      ...directive(namespace, 'certs', [selector]),
      spec: { gates, podsToBounce: [selector] },
    });
    return podUids(h, namespace, { app: 'app' });
  }
  const bounced = (originals: string[]) => {
    const deletions = h.sim.deletionsByUid();
    return originals.filter((uid) => deletions.has(uid)).length;
  };
  const ready = (namespace: string) =>
    (h.sim.getDirective(namespace, 'certs') as any)?.status?.conditions?.find(
      (c: any) => c.type === 'Ready',
    );
  const gatedWith = (namespace: string, pattern: RegExp) =>
    eventually(`${namespace} to be Gated (${pattern})`, () =>
      ready(namespace)?.reason === 'Gated' && pattern.test(ready(namespace).message)
        ? true
        : undefined,
    );
  const finish = async (namespace: string, originals: string[]) => {
    await waitForState(h, namespace, 'certs', 'FINISHED', 60_000);
    expectEachDeletedOnce(h, originals, earlier);
    earlier.push(...originals);
  };

  it('holds the next batch while the gauge fires an alert, and finishes once it resolves', async () => {
    await prom.alertsAre({ MeshErrors: 'inactive' });
    const originals = setUp('alerting', [{ alerts: 'MeshErrors' }]);
    // The mesh breaks as the first batch lands: the soak after it lets the alert fire.
    const stop = h.sim.onPodDeleted((pod) => {
      if (originals.includes(pod.uid)) exporter.set('mesh_errors', 7);
    });
    expect((await h.post({ directive: { namespace: 'alerting', name: 'certs' } })).status).toBe(
      202,
    );
    await gatedWith('alerting', /gate alerts "MeshErrors" closed: firing: MeshErrors/);
    stop();
    expect(bounced(originals)).toBe(1);
    const metrics = await registry.metrics();
    expect(metrics).toMatch(
      /pod_bouncer_gate_verdicts_total\{kind="alerts",verdict="closed"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /pod_bouncer_gate_verdicts_total\{kind="alerts",verdict="open"\} [1-9]/,
    );
    // The gauge is set once the Gated write has returned, a moment after the status shows it.
    await eventually('the gated-since gauge', async () =>
      /pod_bouncer_directive_gated_since_timestamp_seconds\{namespace="alerting",name="certs"\} \d/.test(
        await registry.metrics(),
      )
        ? true
        : undefined,
    );
    // Several evaluations later, still firing: still one.
    await prom.alertsAre({ MeshErrors: 'firing' });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(bounced(originals)).toBe(1);
    exporter.set('mesh_errors', 0);
    await finish('alerting', originals);
    expect(await registry.metrics()).not.toMatch(
      /pod_bouncer_directive_gated_since_timestamp_seconds\{namespace="alerting"/,
    );
  }, 90_000);

  it('holds a query gate while the query has no sample, and opens inside its bounds', async () => {
    const originals = setUp('querying', [{ query: 'mesh_success_ratio', min: 0.99, max: 1 }]);
    expect((await h.post({ directive: { namespace: 'querying', name: 'certs' } })).status).toBe(
      202,
    );
    await gatedWith('querying', /query "mesh_success_ratio" closed: the query gave no sample/);
    expect(bounced(originals)).toBe(0);
    exporter.set('mesh_success_ratio', 0.5);
    await gatedWith('querying', /0\.5 is below 0\.99/);
    expect(bounced(originals)).toBe(0);
    exporter.set('mesh_success_ratio', 0.999);
    await finish('querying', originals);
  }, 90_000);

  it('bounces nothing while Prometheus is down, and finishes once it answers again', async () => {
    const originals = setUp('outage', [{ alerts: 'MeshErrors' }]);
    let atStop = -1;
    const stop = h.sim.onPodDeleted((pod) => {
      if (!originals.includes(pod.uid) || atStop >= 0) return;
      atStop = bounced(originals);
      void prom.stop();
    });
    expect((await h.post({ directive: { namespace: 'outage', name: 'certs' } })).status).toBe(202);
    await gatedWith('outage', /closed: Prometheus unreachable/);
    stop();
    expect(atStop).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(bounced(originals)).toBe(1);
    expect(h.sim.getDirective('outage', 'certs')?.status?.state).toBe('BOUNCING_PODS');
    await prom.start();
    await finish('outage', originals);
  }, 90_000);
});
