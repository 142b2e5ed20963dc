// The api and the worker of one process (`all`) share one set of watch caches: each (kind,
// namespace) is listed and watched once, whichever role asked first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

describe('watch caches in one process running the api and the worker', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('shared-watches');
  });
  afterAll(async () => h.close());

  it('watches each namespace once per kind', async () => {
    h.sim.addWorkload({
      namespace: 'shared',
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'x' },
      replicas: 2,
    });
    h.sim.applyDirective(
      directive('shared', 'certs', [
        { namespace: 'shared', labels: { app: 'x' }, waitForReplicas: 2 },
      ]),
    );
    // The api reads the directive (watch cache), the worker reads it and waits on pods.
    const answer = await h.post({ directive: { namespace: 'shared', name: 'certs' } });
    expect(answer.status).toBe(202);
    await waitForState(h, 'shared', 'certs', 'FINISHED');

    const watches = h.sim.requests().filter((r) => r.watch && r.namespace === 'shared');
    const perKind = new Map<string, number>();
    for (const w of watches) perKind.set(w.resource, (perKind.get(w.resource) ?? 0) + 1);
    expect(perKind.get('podbouncedirectives')).toBe(1);
    expect(perKind.get('pods')).toBe(1);
  });
});
