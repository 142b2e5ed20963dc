import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

function addApps(h: Harness, namespace: string, apps: string[]): void {
  for (const app of apps) {
    h.sim.addWorkload({
      namespace,
      name: app,
      kind: 'ReplicaSet',
      labels: { app },
      replicas: 3,
      // Slow replacements: the chain is still on selector 0 when the test intervenes.
      readinessDelayMs: app === 'first' ? 1500 : 50,
    });
  }
}

const selectors = (namespace: string, apps: string[]) =>
  apps.map((app) => ({ namespace, labels: { app }, waitForReplicas: 3 }));

describe('a directive changed or deleted mid-run', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('supersede');
  });
  afterAll(async () => h.close());

  const deletedApps = (namespace: string) =>
    new Set(
      h.sim
        .deletedPods()
        .filter((p) => p.namespace === namespace)
        .map((p) => p.name.split('-')[0]),
    );

  it('a new generation supersedes the old chain, which bounces nothing more', async () => {
    addApps(h, 'gen', ['first', 'second', 'third', 'fresh']);
    h.sim.applyDirective(directive('gen', 'certs', selectors('gen', ['first', 'second', 'third'])));
    expect((await h.post({ directive: { namespace: 'gen', name: 'certs' } })).status).toBe(202);
    await eventually('selector 0 to bounce', () =>
      deletedApps('gen').has('first') ? true : undefined,
    );

    // Spec changed while selector 0 waits for its replacements: generation 2 bounces only "fresh".
    h.sim.applyDirective(directive('gen', 'certs', selectors('gen', ['fresh'])));
    const second = await h.post({ directive: { namespace: 'gen', name: 'certs' } });
    expect(second.status).toBe(202);
    expect(second.body.generation).toBe(2);
    await waitForState(h, 'gen', 'certs', 'FINISHED');

    // The old chain ends quietly once its wait is re-checked.
    const oldIds = [0, 1, 2].map((i) => second.body.jobIds[0].replace('.g2.r0.s0', `.g1.r0.s${i}`));
    await eventually('the old chain to end', async () => {
      const states = await Promise.all(
        oldIds.map(async (id) => (await h.serve.queue.getJob(id))?.getState()),
      );
      // Ended: completed, or already removed with the rest of the deleted directive's keys.
      return states.every((s) => s === 'completed' || s === undefined) ? states : undefined;
    });
    for (const id of oldIds) {
      const job = await h.serve.queue.getJob(id);
      expect(job?.attemptsMade ?? 0, id).toBeLessThanOrEqual(1);
    }
    expect([...deletedApps('gen')].sort()).toEqual(['first', 'fresh']);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
  });

  it('a deleted directive stops its chain quietly, with no retries piling up', async () => {
    addApps(h, 'gone', ['first', 'second']);
    h.sim.applyDirective(directive('gone', 'certs', selectors('gone', ['first', 'second'])));
    const answer = await h.post({ directive: { namespace: 'gone', name: 'certs' } });
    expect(answer.status).toBe(202);
    await eventually('selector 0 to bounce', () =>
      deletedApps('gone').has('first') ? true : undefined,
    );

    h.sim.deleteDirective('gone', 'certs');
    await eventually('the chain to end', async () => {
      const states = await Promise.all(
        answer.body.jobIds.map(async (id: string) => (await h.serve.queue.getJob(id))?.getState()),
      );
      console.log(
        states,
        h.sim
          .requests()
          .slice(-3)
          .map((r) => `${r.method} ${r.path} ${r.status}`),
      );
      // Ended: completed, or already removed with the rest of the deleted directive's keys.
      return states.every((s) => s === 'completed' || s === undefined) ? states : undefined;
    });
    for (const id of answer.body.jobIds) {
      const job = await h.serve.queue.getJob(id);
      expect(job?.attemptsMade ?? 0).toBeLessThanOrEqual(1);
      expect(job?.failedReason ?? '').toBe('');
    }
    expect([...deletedApps('gone')]).toEqual(['first']);
    // Quiet: once ended, nothing keeps asking the API about the directive.
    h.sim.resetRequests();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const asked = h.sim.requests().filter((r) => r.name === 'certs' && r.namespace === 'gone');
    expect(asked).toEqual([]);
  });
});
