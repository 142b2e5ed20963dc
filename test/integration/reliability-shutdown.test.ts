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

describe('SIGTERM', () => {
  let h: Harness;
  const started: CliProcess[] = [];
  beforeAll(async () => {
    // About shutdown: selector 0's pods all DELETEd at once (the Gloo agent's way), then a wait.
    h = await startHarness('sigterm', { worker: false, env: ALL_AT_ONCE });
  });
  afterAll(async () => {
    for (const cli of started) await stopCli(cli);
    await h.close();
  });

  it('stops accepting HTTP, hands waiting jobs back, exits 0; the next process finishes the run', async () => {
    h.sim.addWorkload({
      namespace: 'mesh',
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 3,
      readinessDelayMs: null,
    });
    h.sim.addWorkload({
      namespace: 'mesh',
      name: 'gateway',
      kind: 'ReplicaSet',
      labels: { app: 'gateway' },
      replicas: 2,
    });
    h.sim.applyDirective(
      directive('mesh', 'certs', [
        { namespace: 'mesh', labels: { app: 'istiod' }, waitForReplicas: 3 },
        { namespace: 'mesh', labels: { app: 'gateway' }, waitForReplicas: 2 },
      ]),
    );
    const env = { ...h.env, PORT: '0', JOB_LOCK_MS: '30000', LOG_LEVEL: 'info' };
    const first = startCli('all', env);
    started.push(first);
    const url = await eventually(
      'the process to listen',
      () => /"url":"(http:[^"]+)"/.exec(first.output())?.[1],
    );

    const answer = await fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${h.env.WEBHOOK_TOKENS}`,
      },
      body: JSON.stringify({ directive: { namespace: 'mesh', name: 'certs' } }),
    });
    expect(answer.status).toBe(202);
    await eventually('selector 0 to bounce its pods and wait', () =>
      h.sim.deletedPods().length === 3 ? true : undefined,
    );

    first.child.kill('SIGTERM');
    const exit = await first.exited;
    expect(exit.code).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    // Nothing is left active under a dead lock: the waiting job is back in the queue as delayed
    // (or waiting), so a new process picks it up at once instead of after a stalled-job check.
    const counts = await h.serve.queue.getJobCounts(
      'active',
      'delayed',
      'waiting',
      'prioritized',
      'waiting-children',
    );
    expect(counts.active).toBe(0);
    expect((counts.delayed ?? 0) + (counts.waiting ?? 0) + (counts.prioritized ?? 0)).toBe(1);

    h.sim.setReadinessDelay('mesh', 'istiod', 0);
    started.push(startCli('work', env));
    await waitForState(h, 'mesh', 'certs', 'FINISHED', 45_000);
    expect(h.sim.deletedPods()).toHaveLength(5);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
  });
});
