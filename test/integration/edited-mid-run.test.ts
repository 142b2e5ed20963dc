import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InlineApplies } from '../../src/queue/inline-applies.js';
import {
  directive,
  eventually,
  startHarness,
  waitForEvents,
  type Harness,
} from '../support/harness.js';
import { REDIS_URL } from '../support/redis.js';

// A directive's spec edited mid-run (kubectl patch, GitOps) in event mode: no run starts by itself
// (DESIGN §4), so the old run must not wait for a newer one that never comes.

const selector = (namespace: string, waitForReplicas: number) => ({
  namespace,
  labels: { app: 'web' },
  maxUnavailable: 1,
  waitForReplicas,
});

function addWeb(h: Harness, namespace: string): void {
  // Slow replacements: the run is still between batches when the spec is edited.
  h.sim.addWorkload({
    namespace,
    name: 'web',
    kind: 'ReplicaSet',
    labels: { app: 'web' },
    replicas: 4,
    readinessDelayMs: 700,
  });
}

describe('a directive whose spec is edited mid-run', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('edited');
  });
  afterAll(async () => h.close());

  const deletedIn = (namespace: string) =>
    h.sim.deletedPods().filter((pod) => pod.namespace === namespace);
  const statusOf = (namespace: string) => h.sim.getDirective(namespace, 'certs')?.status as any;

  it('with no event for the new spec, the run stops before its next batch and ends FAILED', async () => {
    addWeb(h, 'edit');
    h.sim.applyDirective(directive('edit', 'certs', [selector('edit', 1)]));
    const first = await h.post({ directive: { namespace: 'edit', name: 'certs' } });
    expect(first.status).toBe(202);
    await eventually('the first batch', () => (deletedIn('edit').length > 0 ? true : undefined));

    const edited = h.sim.applyDirective(directive('edit', 'certs', [selector('edit', 2)]));
    const editedAt = Date.now();
    expect(edited.metadata.generation).toBe(2);

    const failed = await eventually('the run to end FAILED', () =>
      statusOf('edit')?.state === 'FAILED' ? statusOf('edit') : undefined,
    );
    expect(failed.error).toBe(
      "selector 0: the directive's spec changed (generation 2) during the run; send an event to start a run of it",
    );
    // The status describes the run of generation 1: kubectl users see it is of an older spec.
    expect(failed.observedGeneration).toBe(1);
    const conditions = Object.fromEntries(failed.conditions.map((c: any) => [c.type, c]));
    expect(conditions.Stalled?.status).toBe('True');
    expect(conditions.Reconciling).toBeUndefined();
    // The Event is recorded after the status write it tells.
    const failedEvents = await waitForEvents(h, 'edit', 'Failed');
    expect(failedEvents.some((e: any) => e.type === 'Warning')).toBe(true);
    // Nothing bounced after the edit (a batch sent just before it may still be answered).
    expect(deletedIn('edit').filter((pod) => pod.at > editedAt + 100)).toEqual([]);

    const view = await h.get('/v1/directives/edit/certs');
    expect(view.body.inProgress).toBe(false);
    expect(view.body.jobs[0].state).toBe('failed');

    // An event for generation 2 starts its run as usual, and it finishes.
    const bouncedBefore = deletedIn('edit').length;
    const second = await h.post({ directive: { namespace: 'edit', name: 'certs' } });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ generation: 2, duplicate: false });
    await eventually('generation 2 to finish', () => {
      const status = statusOf('edit');
      return status?.state === 'FINISHED' && status.observedGeneration === 2 ? true : undefined;
    });
    expect(deletedIn('edit').length).toBeGreaterThan(bouncedBefore);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
  });

  it('an event for the new spec sent with the edit: the newer run finishes, the old ends quietly', async () => {
    addWeb(h, 'race');
    h.sim.applyDirective(directive('race', 'certs', [selector('race', 1)]));
    const first = await h.post({ directive: { namespace: 'race', name: 'certs' } });
    expect(first.status).toBe(202);
    await eventually('the first batch', () => (deletedIn('race').length > 0 ? true : undefined));

    h.sim.applyDirective(directive('race', 'certs', [selector('race', 2)]));
    const second = await h.post({ directive: { namespace: 'race', name: 'certs' } });
    expect(second.body).toMatchObject({ generation: 2, duplicate: false });

    await eventually('generation 2 to finish', () => {
      const status = statusOf('race');
      return status?.state === 'FINISHED' && status.observedGeneration === 2 ? true : undefined;
    });
    const old = await h.serve.queue.getJob(first.body.jobIds[0]);
    await eventually('the old job to end', async () =>
      (await old?.getState()) === 'completed' ? true : undefined,
    );
    expect((await h.serve.queue.getJob(first.body.jobIds[0]))?.returnvalue).toEqual({
      outcome: 'superseded',
    });
    // Quietly: the old run told no failure.
    expect(
      h.sim
        .events()
        .filter((e: any) => e.reason === 'Failed' && e.involvedObject?.namespace === 'race'),
    ).toEqual([]);
    expect(statusOf('race').error ?? '').toBe('');
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
  });

  it('an inline apply in progress: the old run waits for its run, and tells no failure', async () => {
    addWeb(h, 'inline');
    h.sim.applyDirective(directive('inline', 'certs', [selector('inline', 1)]));
    const first = await h.post({ directive: { namespace: 'inline', name: 'certs' } });
    expect(first.status).toBe(202);
    await eventually('the first batch', () => (deletedIn('inline').length > 0 ? true : undefined));

    // What an inline event does: mark the apply, apply, then claim its run. The mark is held
    // longer than a batch takes here, so the old run looks at the edit while it is marked.
    const redis = new Redis(REDIS_URL);
    try {
      const applies = new InlineApplies(redis, h.prefix);
      const ref = { namespace: 'inline', name: 'certs' };
      const token = await applies.begin(ref);
      h.sim.applyDirective(directive('inline', 'certs', [selector('inline', 2)]));
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const second = await h.post({ directive: ref });
      expect(second.body).toMatchObject({ generation: 2, duplicate: false });
      await applies.end(ref, token);
    } finally {
      redis.disconnect();
    }

    await eventually('generation 2 to finish', () => {
      const status = statusOf('inline');
      return status?.state === 'FINISHED' && status.observedGeneration === 2 ? true : undefined;
    });
    expect(
      h.sim
        .events()
        .filter((e: any) => e.reason === 'Failed' && e.involvedObject?.namespace === 'inline'),
    ).toEqual([]);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
  });
});

describe('a directive whose spec is edited mid-run, in controller mode', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('edited-controller', { env: { WATCH_DIRECTIVES: 'true' } });
  });
  afterAll(async () => h.close());

  it('the edit starts the newer run, which finishes; the old run ends quietly', async () => {
    addWeb(h, 'watched');
    h.sim.applyDirective(directive('watched', 'certs', [selector('watched', 1)]));
    const deleted = () => h.sim.deletedPods().filter((pod) => pod.namespace === 'watched');
    await eventually('the first batch', () => (deleted().length > 0 ? true : undefined));

    h.sim.applyDirective(directive('watched', 'certs', [selector('watched', 2)]));
    await eventually('generation 2 to finish', () => {
      const status = h.sim.getDirective('watched', 'certs')?.status as any;
      return status?.state === 'FINISHED' && status.observedGeneration === 2 ? true : undefined;
    });
    const failures = h.sim
      .events()
      .filter((e: any) => e.reason === 'Failed' && e.involvedObject?.namespace === 'watched');
    expect(failures).toEqual([]);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
  });
});
