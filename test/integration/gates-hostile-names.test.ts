// An alert name is Prometheus's text, not pod-bouncer's: control characters in it (an escape
// sequence, BEL, a bidi override) never reach the Ready message, the Events or a dry run, where
// `kubectl get` and chat clients would obey them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startFakePrometheus, type FakePrometheus } from '../support/fake-prometheus.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';

const NS = 'hostile';
const HOSTILE = 'Mesh\x1b]0;owned\x07Broken\x07\x1b[2J\u202eDENIF\x9b1A\x7f';
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe('a hostile alert name', () => {
  let h: Harness;
  let prom: FakePrometheus;

  beforeAll(async () => {
    prom = await startFakePrometheus();
    prom.firing.add(HOSTILE);
    h = await startHarness('gates-hostile', {
      env: { PROMETHEUS_URL: prom.url, GATE_INTERVAL_SECONDS: '1' },
    });
    h.sim.addWorkload({
      namespace: NS,
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'app' },
      replicas: 1,
    });
    const selectors = [{ namespace: NS, labels: { app: 'app' } }];
    h.sim.applyDirective({
      ...directive(NS, 'certs', selectors),
      spec: { gates: [{ alerts: 'Mesh.*' }], podsToBounce: selectors },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
  });

  it('reaches the Ready message and the Events without its control characters', async () => {
    expect((await h.post({ directive: { namespace: NS, name: 'certs' } })).status).toBe(202);
    const ready = await eventually('Ready to say Gated', () => {
      const conditions = (h.sim.getDirective(NS, 'certs') as any)?.status?.conditions ?? [];
      const condition = conditions.find((c: any) => c.type === 'Ready');
      return condition?.reason === 'Gated' ? condition : undefined;
    });
    expect(ready.message).toContain('firing: MeshBroken');
    expect(ready.message).not.toMatch(CONTROLS);
    // The Event follows the status write it tells.
    const gated = await eventually('a Gated Event', () => {
      const events = h.sim
        .events()
        .filter((e: any) => e.involvedObject?.namespace === NS && e.reason === 'Gated');
      return events.length > 0 ? events : undefined;
    });
    for (const event of gated) expect((event as any).message).not.toMatch(CONTROLS);
  });

  it('is shown plain in a dry run', async () => {
    const response = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${h.env.WEBHOOK_TOKENS}`,
      },
      body: JSON.stringify({ directive: { namespace: NS, name: 'certs' } }),
    });
    const plan = (await response.json()) as any;
    expect(plan.gates[0].why).toBe('firing: MeshBrokenDENIF');
  });
});
