// DESIGN §4 Soak and Gates in bounceMode rollout: an owner is restarted only while every gate is
// open, and once an owner's rollout is complete the run soaks before the next owner rolls (and,
// after the last, before the selector is done).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startFakePrometheus, type FakePrometheus } from '../support/fake-prometheus.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const NS = 'rolled';

describe('soak and gates in bounceMode rollout', () => {
  let h: Harness;
  let prom: FakePrometheus;

  beforeAll(async () => {
    prom = await startFakePrometheus();
    h = await startHarness('gates-rollout', {
      env: { PROMETHEUS_URL: prom.url, GATE_INTERVAL_SECONDS: '1' },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
  });

  /** Owner restarts sent: PATCHes of a Deployment's template. */
  const restarts = () =>
    h.sim
      .requests()
      .filter(
        (r) => r.namespace === NS && r.method === 'PATCH' && /deployments/.test(r.path ?? ''),
      );

  it('restarts no owner while a gate is closed, and soaks after each owner is rolled out', async () => {
    for (const name of ['a', 'b']) {
      h.sim.addWorkload({
        namespace: NS,
        name,
        kind: 'Deployment',
        labels: { tier: 'web', app: name },
        replicas: 2,
        maxSurge: 1,
        maxUnavailable: 0,
        readinessDelayMs: 50,
      });
    }
    const selector = {
      namespace: NS,
      labels: { tier: 'web' },
      bounceMode: 'rollout',
      maxUnavailable: 1,
      soakSeconds: 2,
    };
    h.sim.applyDirective({
      ...directive(NS, 'certs', [selector]),
      spec: { gates: [{ query: 'mesh_ok', min: 1 }], podsToBounce: [selector] },
    });
    // No sample: closed.
    const accepted = await h.post({ directive: { namespace: NS, name: 'certs' } });
    expect(accepted.status).toBe(202);
    await eventually('Ready to say Gated', () =>
      (h.sim.getDirective(NS, 'certs') as any)?.status?.conditions?.find(
        (c: any) => c.type === 'Ready' && c.reason === 'Gated',
      ),
    );
    await eventually('a few evaluations', () =>
      (prom.counts()['/api/v1/query'] ?? 0) >= 3 ? true : undefined,
    );
    expect(restarts()).toEqual([]);
    prom.value = 1;
    await waitForState(h, NS, 'certs', 'FINISHED', 60_000);
    const [jobId] = accepted.body.jobIds as string[];
    const { logs } = await h.serve.queue.getJobLogs(jobId!);
    const order = logs
      .join('\n')
      .split('\n')
      .map((line) => line.replace(/^\[[^\]]+\] /, '').replace(/ \(restartedAt .*\)$/, ''))
      .filter((line) => /rollout restart of|soaked \d+ s after/.test(line));
    expect(order).toEqual([
      'bounce: rollout restart of Deployment/a',
      'bounce: soaked 2 s after 2 pod(s) bounced',
      'bounce: rollout restart of Deployment/b',
      'waitForReplicas: soaked 2 s after 4 pod(s) bounced',
    ]);
    expect(restarts()).toHaveLength(2);
  }, 90_000);
});
