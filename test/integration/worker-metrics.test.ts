import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_AT_ONCE,
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { startCli, stopCli, type CliProcess } from '../support/processes.js';

describe('a worker-only process', () => {
  let h: Harness;
  let worker: CliProcess;
  beforeAll(async () => {
    // Counts DELETE requests: the Gloo agent's way of bouncing, set by name.
    h = await startHarness('worker-ops', { worker: false, env: ALL_AT_ONCE });
    worker = startCli('work', { ...h.env, LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    await stopCli(worker);
    await h.close();
  });

  it('answers /healthz and serves the metrics of the pods it bounced', async () => {
    const url = await eventually(
      'the worker to listen',
      () => /"url":"(http:[^"]+)"/.exec(worker.output())?.[1],
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    h.sim.addWorkload({
      namespace: 'apps',
      name: 'web',
      kind: 'ReplicaSet',
      labels: { app: 'web' },
      replicas: 2,
    });
    h.sim.applyDirective(
      directive('apps', 'web', [{ namespace: 'apps', labels: { app: 'web' }, waitForReplicas: 2 }]),
    );
    expect((await h.post({ directive: { namespace: 'apps', name: 'web' } })).status).toBe(202);
    await waitForState(h, 'apps', 'web', 'FINISHED');

    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^pod_bouncer_pods_bounced_total\{namespace="apps"\} 2$/m);
    expect(metrics).toMatch(
      /^pod_bouncer_kubernetes_requests_total\{[^}]*verb="delete"[^}]*\} 2$/m,
    );
    expect(metrics).toContain('process_resident_memory_bytes');
  });
});
