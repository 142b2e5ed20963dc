import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

function startWorkerProcess(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['dist/cli.js', 'work'], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
}

describe('a worker killed with SIGKILL right after its first deletion', () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    h = await startHarness('kill', { worker: false });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await h.close();
  });

  it('is restarted and the directive finishes with no pod deleted twice', async () => {
    h.sim.addWorkload({
      namespace: 'istio-system',
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 12,
      readinessDelayMs: 300,
    });
    h.sim.addWorkload({
      namespace: 'istio-system',
      name: 'gateway',
      kind: 'ReplicaSet',
      labels: { app: 'gateway' },
      replicas: 3,
      readinessDelayMs: 100,
    });
    const originals = [
      ...h.sim.listPods('istio-system', { app: 'istiod' }),
      ...h.sim.listPods('istio-system', { app: 'gateway' }),
    ].map((p) => p.metadata.uid);
    h.sim.applyDirective(
      directive('istio-system', 'killed', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 12 },
        { namespace: 'istio-system', labels: { app: 'gateway' }, waitForReplicas: 3 },
      ]),
    );

    const first = startWorkerProcess(h.env);
    children.push(first);
    const killed = new Promise<void>((resolve) => {
      const stop = h.sim.onPodDeleted(() => {
        stop();
        first.kill('SIGKILL');
        resolve();
      });
    });
    expect(
      (await h.post({ directive: { namespace: 'istio-system', name: 'killed' } })).status,
    ).toBe(202);
    await killed;
    const deletedAtKill = h.sim.deletedPods().length;
    expect(deletedAtKill).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => first.once('exit', resolve));

    children.push(startWorkerProcess(h.env));
    await waitForState(h, 'istio-system', 'killed', 'FINISHED', 45_000);

    const deletions = h.sim.deletionsByUid();
    for (const uid of originals) expect(deletions.get(uid)).toBe(1);
    for (const [uid, count] of h.sim.deleteRequestsByUid()) {
      expect(originals).toContain(uid);
      expect(count).toBe(1);
    }
  });
});
