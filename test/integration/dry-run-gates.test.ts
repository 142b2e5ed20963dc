// DESIGN §2 ?dryRun=true: every gate of §4 that would hold the run (the installation's
// GATE_ALERTS and GATE_WINDOWS, then spec.gates) is evaluated now and reported open, or closed and
// why; nothing is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startFakePrometheus, type FakePrometheus } from '../support/fake-prometheus.js';
import { directive, startHarness, type Harness } from '../support/harness.js';
import { keysUnder, postRaw } from '../support/routers.js';

describe('?dryRun=true and gates', () => {
  let h: Harness;
  let prom: FakePrometheus;

  beforeAll(async () => {
    prom = await startFakePrometheus();
    h = await startHarness('dry-run-gates', {
      env: {
        PROMETHEUS_URL: prom.url,
        GATE_ALERTS: 'MeshDown|IstiodDown',
        GATE_WINDOWS: '00:00-24:00',
        GATE_INTERVAL_SECONDS: '1',
      },
      worker: false,
    });
    h.sim.addWorkload({
      namespace: 'gated',
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'app' },
      replicas: 1,
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
  });

  async function dryRun(name: string, gates: object[]) {
    const selector = { namespace: 'gated', labels: { app: 'app' } };
    h.sim.applyDirective({
      ...directive('gated', name, [selector]),
      spec: { gates, podsToBounce: [selector] },
    });
    const keys = await keysUnder(h.prefix);
    h.sim.resetRequests();
    const answer = await postRaw(
      h,
      JSON.stringify({ directive: { namespace: 'gated', name } }),
      { 'content-type': 'application/json' },
      '?dryRun=true',
    );
    expect(h.sim.requests().filter((request) => request.method !== 'GET')).toEqual([]);
    expect(await keysUnder(h.prefix)).toEqual(keys);
    expect(answer.status).toBe(200);
    return answer.body.gates;
  }

  // A window that is not now: two hours ahead of the current UTC hour, for one hour.
  const later = () => {
    const pad = (n: number) => String(n).padStart(2, '0');
    const hour = (new Date().getUTCHours() + 2) % 24;
    return { start: `${pad(hour)}:00`, end: `${pad((hour + 1) % 24)}:00` };
  };

  it('reports each gate open, or closed and why, installation gates first', async () => {
    prom.firing.add('IstiodDown');
    prom.value = undefined;
    const window = later();
    const gates = await dryRun('all-kinds', [
      { alerts: 'Unrelated' },
      { query: 'mesh_ok', min: 1 },
      { windows: [window] },
    ]);
    expect(gates).toEqual([
      {
        gate: 'alerts "MeshDown|IstiodDown"',
        kind: 'alerts',
        source: 'installation',
        verdict: 'closed',
        why: 'firing: IstiodDown',
      },
      { gate: 'windows 00:00-24:00 UTC', kind: 'windows', source: 'installation', verdict: 'open' },
      { gate: 'alerts "Unrelated"', kind: 'alerts', source: 'directive', verdict: 'open' },
      {
        gate: 'query "mesh_ok"',
        kind: 'query',
        source: 'directive',
        verdict: 'closed',
        why: 'the query gave no sample',
      },
      {
        gate: `windows ${window.start}-${window.end} UTC`,
        kind: 'windows',
        source: 'directive',
        verdict: 'closed',
        why: 'outside its windows',
      },
    ]);
  });

  it('answers at once on a regex a backtracking engine takes minutes over', async () => {
    // RE2 semantics, linear in the name; JavaScript's engine tries 3^18 paths on this name.
    prom.firing.clear();
    prom.firing.add('KubePodCrashLoopingAbc');
    const never = 'Kube(\\w|\\w|\\w)*Z';
    const matching = 'Kub(\\w|\\w|\\w)*c';
    const gates = await dryRun('pathological', [{ alerts: never }, { alerts: matching }]);
    expect(gates.slice(2)).toEqual([
      {
        gate: `alerts ${JSON.stringify(never)}`,
        kind: 'alerts',
        source: 'directive',
        verdict: 'open',
      },
      {
        gate: `alerts ${JSON.stringify(matching)}`,
        kind: 'alerts',
        source: 'directive',
        verdict: 'closed',
        why: 'firing: KubePodCrashLoopingAbc',
      },
    ]);
  });

  it('says which gate a Prometheus that cannot be reached closes', async () => {
    prom.firing.clear();
    prom.value = 1;
    // A fresh verdict once the interval has passed: the alerts gate opens, the query is inside.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const open = await dryRun('open', [{ query: 'mesh_ok', min: 1 }]);
    expect(open.map((gate: any) => gate.verdict)).toEqual(['open', 'open', 'open']);
    await prom.close();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const down = await dryRun('down', [{ query: 'mesh_ok', min: 1 }]);
    expect(down[0]).toMatchObject({
      verdict: 'closed',
      why: expect.stringMatching(/^Prometheus unreachable/),
    });
    expect(down[2]).toMatchObject({
      verdict: 'closed',
      why: expect.stringMatching(/^Prometheus unreachable/),
    });
    expect(down[1]).toMatchObject({ kind: 'windows', verdict: 'open' });
  });
});
