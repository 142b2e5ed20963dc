import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { addApps } from '../support/workloads.js';

describe('a two-selector directive', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('order');
  });
  afterAll(async () => h.close());

  it('bounces the gateway only after a replacement istiod is Ready, and ends FINISHED', async () => {
    addApps(h, 'istio-system', ['istiod'], { replicas: 1, readinessDelayMs: 600 });
    addApps(h, 'istio-system', ['gateway'], { replicas: 2 });
    const originalIstiod = h.sim
      .listPods('istio-system', { app: 'istiod' })
      .map((p) => p.metadata.name);
    const originalGateway = h.sim
      .listPods('istio-system', { app: 'gateway' })
      .map((p) => p.metadata.name);
    const istiodUids = new Set(
      h.sim.listPods('istio-system', { app: 'istiod' }).map((p) => p.metadata.uid),
    );

    const violations: string[] = [];
    h.sim.onPodDeleted((pod) => {
      if (!originalGateway.includes(pod.name)) return;
      const readyReplacement = h.sim
        .listPods('istio-system', { app: 'istiod' })
        .some(
          (p) =>
            !istiodUids.has(p.metadata.uid) &&
            !p.metadata.deletionTimestamp &&
            p.status.conditions.some((c: any) => c.type === 'Ready' && c.status === 'True'),
        );
      if (!readyReplacement) violations.push(pod.name);
    });

    h.sim.applyDirective(
      directive('istio-system', 'mesh-certs', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 1 },
        { namespace: 'istio-system', labels: { app: 'gateway' }, waitForReplicas: 0 },
      ]),
    );
    // PENDING (and its Accepted Event) follows the answer: the worker waits for it here.
    await h.work?.worker.pause();
    const answer = await h.post({ directive: { namespace: 'istio-system', name: 'mesh-certs' } });
    expect(answer.status).toBe(202);
    await eventually('PENDING', () =>
      h.sim.getDirective('istio-system', 'mesh-certs')?.status?.state === 'PENDING'
        ? true
        : undefined,
    );
    await h.work?.worker.resume();
    expect(answer.body).toMatchObject({
      directive: 'istio-system/mesh-certs',
      generation: 1,
      selectors: 2,
      duplicate: false,
    });
    expect(answer.body.jobIds).toHaveLength(2);

    const done = await waitForState(h, 'istio-system', 'mesh-certs', 'FINISHED');
    expect(violations).toEqual([]);
    expect(done.status.observedGeneration).toBe(done.metadata.generation);
    expect(done.status.error).toBe('');
    expect(done.status.podsBounced).toEqual([
      { bouncedPods: originalIstiod },
      { bouncedPods: originalGateway },
    ]);
    const deleted = h.sim.deletedPods().map((p) => p.name);
    expect(deleted.slice(0, 1)).toEqual(originalIstiod);
    expect(deleted.slice(1).sort()).toEqual([...originalGateway].sort());

    const view = await h.get('/v1/directives/istio-system/mesh-certs');
    expect(view.status).toBe(200);
    expect(view.body.jobs.map((j: any) => j.state)).toEqual(['completed', 'completed']);
    // The Finished Event follows the FINISHED status write that was waited for.
    const told = ['Accepted', 'Bouncing', 'PodsSelected', 'Finished'];
    const reasons = await eventually('the Events of the run', () => {
      const seen = h.sim.events().map((e: any) => e.reason);
      return told.every((reason) => seen.includes(reason)) ? seen : undefined;
    });
    expect(reasons).toEqual(expect.arrayContaining(told));
  });
});
