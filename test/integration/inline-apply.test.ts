import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKEN } from '../../src/sim/kubeconfig.js';
import { directive, startHarness, type Harness } from '../support/harness.js';

/** Server-side apply straight to the simulator as another field manager (what Argo CD does). */
async function applyAs(h: Harness, manager: string, body: any, force = false) {
  const { namespace, name } = body.metadata;
  const url = `${h.sim.url}/apis/internal.gloo.solo.io/v2/namespaces/${namespace}/podbouncedirectives/${name}?fieldManager=${manager}${force ? '&force=true' : ''}`;
  const response = await fetch(url, {
    method: 'PATCH',
    headers: {
      'content-type': 'application/apply-patch+yaml',
      authorization: `Bearer ${SIM_TOKEN}`,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('inline directives by server-side apply without force', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('inline-apply', { worker: false });
  });
  afterAll(async () => h.close());

  const owned = directive('bookinfo', 'owned', [
    { namespace: 'bookinfo', labels: { app: 'reviews' } },
  ]);

  it('the simulator answers a conflicting apply 409 with causes naming field and manager', async () => {
    expect((await applyAs(h, 'argocd', owned)).status).toBe(201);
    const changed = directive('bookinfo', 'owned', [{ namespace: 'bookinfo' }]);
    const refused = await applyAs(h, 'someone', changed);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(refused.body.details.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "argocd" using internal.gloo.solo.io/v2',
        field: '.spec.podsToBounce',
      },
    ]);
    // The same values are shared, not a conflict; force takes the fields over.
    expect((await applyAs(h, 'someone', owned)).status).toBe(200);
    expect((await applyAs(h, 'someone', changed, true)).status).toBe(200);
    expect((await applyAs(h, 'argocd', owned)).status).toBe(409);
    expect((await applyAs(h, 'argocd', owned, true)).status).toBe(200);
  });

  it('an inline event for a directive another manager owns is 409 and changes nothing', async () => {
    const before = h.sim.getDirective('bookinfo', 'owned')!;
    const inline = directive('bookinfo', 'owned', [
      { namespace: 'bookinfo', labels: { app: 'ratings' } },
    ]);
    const answer = await h.post({ directive: inline });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('conflict');
    expect(answer.body.message).toMatch(/conflict with "argocd".*\.spec\.podsToBounce/);
    const after = h.sim.getDirective('bookinfo', 'owned')!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec).toEqual(before.spec);
    expect(await h.serve.queue.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0 });
  });

  it('an inline event for a directive pod-bouncer applied itself updates it', async () => {
    const mine = directive('bookinfo', 'mine', [{ namespace: 'bookinfo' }]);
    expect((await h.post({ directive: mine })).status).toBe(202);
    const updated = directive('bookinfo', 'mine', [{ namespace: 'bookinfo', labels: { a: 'b' } }]);
    const answer = await h.post({ directive: updated });
    expect(answer.status).toBe(202);
    expect(answer.body.generation).toBe(2);
  });
});
