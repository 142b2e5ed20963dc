// Directives written without server-side apply (kubectl apply's client side, kubectl create, edit,
// replace) are owned by their writer all the same, as the API server's managedFields record them
// (operation Update): a credential's inline directive that would change them is a 409, and so is
// its dry run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKEN } from '../../src/sim/kubeconfig.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';
import { postRaw } from '../support/routers.js';

const NS = 'bookinfo';
const KUBECTL_AGENT = 'kubectl/v1.35.2 (linux/amd64) kubernetes/8a7e2c4';

describe('inline directives over fields another writer set without apply', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('inline-owners', { worker: false });
  });
  afterAll(async () => h.close());

  // As pod-bouncer applies a selector (waitForReplicas written out), so that equal means equal.
  const selectors = (app: string, maxUnavailable = 1) => [
    { namespace: NS, labels: { app }, waitForReplicas: 0, maxUnavailable },
  ];

  /** A write straight to the simulator, as kubectl sends it (no apply). */
  async function write(
    method: 'POST' | 'PUT' | 'PATCH',
    name: string,
    body: object,
    query = '',
  ): Promise<number> {
    const base = `${h.sim.url}/apis/internal.gloo.solo.io/v2/namespaces/${NS}/podbouncedirectives`;
    const response = await fetch(`${base}${method === 'POST' ? '' : `/${name}`}${query}`, {
      method,
      headers: {
        'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
        'user-agent': KUBECTL_AGENT,
        authorization: `Bearer ${SIM_TOKEN}`,
      },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** An inline event from the harness's credential, for real or as a dry run. */
  const event = (manifest: object, dryRun = false) =>
    postRaw(
      h,
      JSON.stringify({ directive: manifest }),
      { 'content-type': 'application/json' },
      dryRun ? '?dryRun=true' : '',
    );

  /** The inline event changing `name`'s selectors: refused naming `owner`, and nothing changes. */
  async function refused(name: string, owner: string, dryRun = false): Promise<void> {
    const before = h.sim.getDirective(NS, name)!;
    const queued = await h.serve.queue.getJobCounts();
    const answer = await event(directive(NS, name, selectors('ratings', 8)), dryRun);
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('conflict');
    expect(answer.body.message).toContain(`conflict with "${owner}"`);
    expect(answer.body.message).toContain('.spec.podsToBounce');
    const after = h.sim.getDirective(NS, name)!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec).toEqual(before.spec);
    expect(await h.serve.queue.getJobCounts()).toEqual(queued);
  }

  it("refuses a change to a directive kubectl apply created client-side (kubectl-client-side-apply's)", async () => {
    const created = await write(
      'POST',
      'kubectl-applied',
      directive(NS, 'kubectl-applied', selectors('web')),
      '?fieldManager=kubectl-client-side-apply',
    );
    expect(created).toBe(201);
    await refused('kubectl-applied', 'kubectl-client-side-apply');
  });

  it("names a writer without fieldManager by its User-Agent's product, as the API server does", async () => {
    expect(await write('POST', 'by-agent', directive(NS, 'by-agent', selectors('web')))).toBe(201);
    await refused('by-agent', 'kubectl');
  });

  it('an edit or replace takes the fields it changes from the credential that applied them', async () => {
    const mine = directive(NS, 'edited', selectors('web'));
    expect((await h.post({ directive: mine })).status).toBe(202);
    // The same values again: shared, no conflict (a duplicate of the run).
    expect((await h.post({ directive: mine })).body.duplicate).toBe(true);
    const patch = { spec: { podsToBounce: selectors('reviews') } };
    expect(await write('PATCH', 'edited', patch, '?fieldManager=kubectl-edit')).toBe(200);
    await refused('edited', 'kubectl-edit');
    // Applying the value the edit set shares it again; the credential's change is then its own.
    const agreed = await h.post({ directive: directive(NS, 'edited', selectors('reviews')) });
    expect(agreed.status).toBe(202);
    // The run's PENDING follows the answer; a replace read before it lands would be stale (409).
    const current = await eventually('the PENDING of the agreed run', () => {
      const read = h.sim.getDirective(NS, 'edited') as any;
      const pending = read?.status?.observedGeneration === read?.metadata.generation;
      return pending && read.status.state === 'PENDING' ? read : undefined;
    });
    const replaced = { ...current, spec: { podsToBounce: selectors('details') } };
    expect(await write('PUT', 'edited', replaced, '?fieldManager=kubectl-replace')).toBe(200);
    await refused('edited', 'kubectl-replace');
  });

  it('a dry run meets the same 409 and a dry run that would not conflict writes nothing', async () => {
    await refused('kubectl-applied', 'kubectl-client-side-apply', true);
    const fresh = directive(NS, 'never-written', selectors('web'));
    const planned = await event(fresh, true);
    expect(planned.status).toBe(200);
    expect(planned.body).toMatchObject({ dryRun: true, inline: true, uid: null });
    expect(h.sim.getDirective(NS, 'never-written')).toBeUndefined();
    // Nothing of the dry run is owned: another credential may still create it.
    expect((await h.post({ directive: fresh })).status).toBe(202);
  });
});
