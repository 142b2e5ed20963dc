// Gates and soak in real runs: no pod is bounced while a gate is closed (Ready says Gated, one
// Event per closing), the run goes on once it opens, an alerts gate closed for GATE_TIMEOUT_SECONDS
// fails the run naming it, windows hold without a timeout, and a soak follows each batch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requiredBinary } from '../support/binaries.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { startPrometheus, type OwnPrometheus } from '../support/prometheus-server.js';

const prometheus = requiredBinary('prometheus', 'apt-get install -y prometheus');

describe.skipIf(prometheus === undefined)('gates and soak in a run', () => {
  let h: Harness;
  let prom: OwnPrometheus;
  // MeshBroken fires until `until`, a few seconds after start; AlwaysFiring never stops.
  let until = 0;
  let strict: Harness;

  beforeAll(async () => {
    until = Math.floor(Date.now() / 1000) + 10;
    prom = await startPrometheus(
      prometheus!,
      `groups:
  - name: mesh
    interval: 1s
    rules:
      - alert: MeshBroken
        expr: vector(time()) < ${until}
      - alert: AlwaysFiring
        expr: vector(1)
`,
    );
    await prom.alertsAre({ MeshBroken: 'firing', AlwaysFiring: 'firing' });
    h = await startHarness('gates-run', {
      env: {
        PROMETHEUS_URL: prom.url,
        GATE_INTERVAL_SECONDS: '1',
        POLL_INTERVAL_MS: '100',
      },
    });
    // The same, with a gate timeout short enough to watch.
    strict = await startHarness('gates-timeout', {
      env: { PROMETHEUS_URL: prom.url, GATE_INTERVAL_SECONDS: '1', GATE_TIMEOUT_SECONDS: '3' },
    });
  }, 90_000);
  afterAll(async () => {
    await strict?.close();
    await h?.close();
    await prom?.close();
  });

  function workload(namespace: string, replicas = 2): string[] {
    h.sim.addWorkload({
      namespace,
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'app' },
      replicas,
      readinessDelayMs: 50,
    });
    return h.sim.listPods(namespace, { app: 'app' }).map((pod: any) => pod.metadata.uid);
  }
  const bounces = (namespace: string) =>
    h.sim
      .requests()
      .filter(
        (r) => r.namespace === namespace && (r.subresource === 'eviction' || r.method === 'DELETE'),
      ).length;
  const ready = (namespace: string) =>
    (h.sim.getDirective(namespace, 'certs') as any)?.status?.conditions?.find(
      (c: any) => c.type === 'Ready',
    );
  const events = (namespace: string, reason: string) =>
    h.sim
      .events()
      .filter((e: any) => e.involvedObject?.namespace === namespace && e.reason === reason);

  it('bounces nothing while an alert fires, says Gated once, and goes on when it resolves', async () => {
    workload('gated');
    h.sim.applyDirective({
      ...directive('gated', 'certs', [
        { namespace: 'gated', labels: { app: 'app' }, maxUnavailable: 1 },
      ]),
      spec: {
        gates: [{ alerts: 'MeshBroken|Unrelated' }],
        podsToBounce: [{ namespace: 'gated', labels: { app: 'app' }, maxUnavailable: 1 }],
      },
    });
    expect((await h.post({ directive: { namespace: 'gated', name: 'certs' } })).status).toBe(202);
    await eventually('Ready to say Gated', () =>
      ready('gated')?.reason === 'Gated' ? true : undefined,
    );
    expect(ready('gated').message).toMatch(
      /gate alerts "MeshBroken\|Unrelated" closed: firing: MeshBroken/,
    );
    // While it fires, several evaluations later: still nothing bounced.
    await prom.alertsAre({ MeshBroken: 'firing' });
    expect(bounces('gated')).toBe(0);
    await waitForState(h, 'gated', 'certs', 'FINISHED', 60_000);
    expect(bounces('gated')).toBe(2);
    expect(events('gated', 'Gated')).toHaveLength(1);
    // The verdict was no older than the interval when the gate opened: MeshBroken was resolved.
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(until);
  }, 90_000);

  it('fails the run when an alerts gate stays closed for GATE_TIMEOUT_SECONDS, naming it', async () => {
    strict.sim.addWorkload({
      namespace: 'timeout',
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'app' },
      replicas: 2,
    });
    strict.sim.applyDirective({
      ...directive('timeout', 'certs', [{ namespace: 'timeout', labels: { app: 'app' } }]),
      spec: {
        gates: [{ alerts: 'AlwaysFiring' }],
        podsToBounce: [{ namespace: 'timeout', labels: { app: 'app' } }],
      },
    });
    expect((await strict.post({ directive: { namespace: 'timeout', name: 'certs' } })).status).toBe(
      202,
    );
    const failed = await waitForState(strict, 'timeout', 'certs', 'FAILED', 60_000);
    expect(failed.status.error).toBe(
      'selector 0: gate alerts "AlwaysFiring" closed for 3 s: firing: AlwaysFiring',
    );
    expect(
      strict.sim
        .requests()
        .filter(
          (r) =>
            r.namespace === 'timeout' && (r.subresource === 'eviction' || r.method === 'DELETE'),
        ),
    ).toEqual([]);
  }, 90_000);

  it('holds a run outside its windows without timing out', async () => {
    workload('windowed');
    // A window that is not now: two hours ahead of the current UTC hour, for one hour.
    const hour = (new Date().getUTCHours() + 2) % 24;
    const pad = (n: number) => String(n).padStart(2, '0');
    const window = { start: `${pad(hour)}:00`, end: `${pad((hour + 1) % 24)}:00` };
    h.sim.applyDirective({
      ...directive('windowed', 'certs', [{ namespace: 'windowed', labels: { app: 'app' } }]),
      spec: {
        gates: [{ windows: [window] }],
        podsToBounce: [{ namespace: 'windowed', labels: { app: 'app' } }],
      },
    });
    expect((await h.post({ directive: { namespace: 'windowed', name: 'certs' } })).status).toBe(
      202,
    );
    await eventually('Ready to say Gated', () =>
      ready('windowed')?.reason === 'Gated' ? true : undefined,
    );
    expect(ready('windowed').message).toMatch(/outside its windows/);
    // Well past a gate timeout's worth of evaluations: a window never fails the run.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(h.sim.getDirective('windowed', 'certs')?.status?.state).toBe('BOUNCING_PODS');
    expect(bounces('windowed')).toBe(0);
  }, 30_000);

  it('soaks after each batch, then finishes', async () => {
    workload('soaked', 2);
    const selector = {
      namespace: 'soaked',
      labels: { app: 'app' },
      maxUnavailable: 1,
      soakSeconds: 2,
    };
    h.sim.applyDirective(directive('soaked', 'certs', [selector]));
    const accepted = await h.post({ directive: { namespace: 'soaked', name: 'certs' } });
    expect(accepted.status).toBe(202);
    await waitForState(h, 'soaked', 'certs', 'FINISHED', 30_000);
    const [jobId] = accepted.body.jobIds as string[];
    const { logs } = await h.serve.queue.getJobLogs(jobId!);
    const lines = logs
      .join('\n')
      .split('\n')
      .map((line) => line.replace(/^\[[^\]]+\] /, ''));
    const order = lines
      .filter((line) => /evict: |soaked \d+ s after/.test(line))
      .map((line) => line.replace(/: app-\S+/, ''));
    // One soak after each batch, the last included, before anything else is sent.
    expect(order).toEqual([
      'bounce: evict',
      'bounce: soaked 2 s after 1 pod(s) bounced',
      'bounce: evict',
      'waitForReplicas: soaked 2 s after 2 pod(s) bounced',
    ]);
    expect(bounces('soaked')).toBe(2);
  }, 30_000);
});
