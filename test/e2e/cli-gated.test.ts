// `pod-bouncer status --watch` as a user runs it, on a run held by a gate and then let go: a line
// when the gate closes (which gate, why), the selector line naming it while it holds, and a line
// when every gate is open again; then FINISHED and exit 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { linesOf, runCli } from '../support/cli-run.js';
import { startFakePrometheus, type FakePrometheus } from '../support/fake-prometheus.js';
import { directive, eventually, startHarness, TOKEN, type Harness } from '../support/harness.js';

describe('status --watch of a gated run', () => {
  let h: Harness;
  let prom: FakePrometheus;

  beforeAll(async () => {
    prom = await startFakePrometheus();
    prom.firing.add('MeshDown');
    h = await startHarness('cli-gated', {
      env: { PROMETHEUS_URL: prom.url, GATE_INTERVAL_SECONDS: '1' },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
  });

  it('shows the gate closing, the gate on the selector line, and the run resuming', async () => {
    h.sim.addWorkload({
      namespace: 'mesh',
      name: 'reviews',
      kind: 'ReplicaSet',
      labels: { app: 'reviews' },
      replicas: 2,
      readinessDelayMs: 50,
    });
    const selector = { namespace: 'mesh', labels: { app: 'reviews' }, maxUnavailable: 1 };
    h.sim.applyDirective({
      ...directive('mesh', 'certs', [selector]),
      spec: { gates: [{ alerts: 'MeshDown' }], podsToBounce: [selector] },
    });
    expect((await h.post({ directive: { namespace: 'mesh', name: 'certs' } })).status).toBe(202);
    const env = { POD_BOUNCER_URL: h.serve.url, POD_BOUNCER_TOKEN: TOKEN };
    const watching = runCli(['status', '--watch', 'mesh/certs'], env);
    await eventually('the run to be Gated', () =>
      (h.sim.getDirective('mesh', 'certs') as any)?.status?.conditions?.find(
        (c: any) => c.type === 'Ready' && c.reason === 'Gated',
      ),
    );
    // A few evaluations while it holds (the watch reads every second).
    await eventually('evaluations', () =>
      (prom.counts()['/api/v1/alerts'] ?? 0) >= 3 ? true : undefined,
    );
    prom.firing.clear();
    const watched = await watching;
    console.log(`status --watch transcript:\n${watched.stdout}`);
    expect(watched.code).toBe(0);
    const lines = linesOf(watched.stdout);
    const gatedAt = lines.indexOf(
      'selector 1/1 (mesh app=reviews) gated: gate alerts "MeshDown" closed: firing: MeshDown',
    );
    const resumedAt = lines.indexOf('selector 1/1 (mesh app=reviews) resumed: every gate open');
    expect(gatedAt).toBeGreaterThanOrEqual(0);
    expect(resumedAt).toBeGreaterThan(gatedAt);
    expect(lines.filter((line) => / gated: /.test(line))).toHaveLength(1);
    expect(lines[gatedAt + 2]).toMatch(
      /^selector 1\/1 {2}bounced 0\/2 .*gate alerts "MeshDown" closed: firing: MeshDown$/,
    );
    expect(lines.at(-2)).toMatch(/^mesh\/certs {2}FINISHED/);
  }, 60_000);
});
