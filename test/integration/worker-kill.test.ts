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

  it('killed while sending a batch, it leaves no lease behind: a newer run then bounces each pod once', async () => {
    const namespace = 'lease-kill';
    h.sim.addWorkload({
      namespace,
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 4,
      readinessDelayMs: 200,
      terminationGraceMs: 1000,
    });
    h.sim.applyDirective(
      directive(namespace, 'leased', [
        { namespace, labels: { app: 'istiod' }, waitForReplicas: 4, maxUnavailable: 2 },
      ]),
    );
    const ref = { namespace, name: 'leased' };
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const first = startWorkerProcess(h.env);
    children.push(first);
    // Killed inside its first batch, while its job holds the directive's bounce lease.
    const killed = new Promise<void>((resolve) => {
      const stop = h.sim.onPodDeleted((pod) => {
        if (pod.namespace !== namespace) return;
        stop();
        first.kill('SIGKILL');
        resolve();
      });
    });
    const older = await h.post({ directive: ref, issuedAt: new Date().toISOString() });
    expect(older.body.duplicate).toBe(false);
    await killed;
    await new Promise((resolve) => first.once('exit', resolve));
    // A later issuance supersedes the run the dead worker was bouncing.
    const newer = await h.post({ directive: ref, issuedAt: new Date().toISOString() });
    expect(newer.body.duplicate).toBe(false);

    children.push(startWorkerProcess(h.env));
    const done = await waitForState(h, namespace, 'leased', 'FINISHED', 45_000);
    expect(done.status.issuedAt).toBe(newer.body.issuedAt);
    const [job] = await Promise.all(
      newer.body.jobIds.map((id: string) => h.serve.queue.getJob(id)),
    );
    expect(job.data.progress.chosen.length).toBeGreaterThan(0);
    for (const [uid, count] of h.sim.deleteRequestsByUid()) expect(count, uid).toBe(1);
  });
});
