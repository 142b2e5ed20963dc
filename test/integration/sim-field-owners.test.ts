// Field ownership of writes that are not applies (operation Update, as managedFields record them):
// what a later apply may change without force, and what it keeps when it stops applying a field.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import {
  apiError,
  directiveBody,
  GROUP,
  PLURAL,
  startWithClients,
  VERSION,
} from './sim-clients.js';
import type { SimClients } from './sim-clients.js';

const NS = 'istio-system';
const ref = { group: GROUP, version: VERSION, namespace: NS, plural: PLURAL };
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const istiod = { namespace: NS, labels: { app: 'istiod' } };
const gateway = { namespace: NS, labels: { app: 'gateway' } };

describe('simulator: field ownership of creates, updates and patches', () => {
  let c: SimClients;
  beforeEach(async () => {
    c = await startWithClients();
  });
  afterEach(async () => {
    await c.sim.close();
  });

  const applyAs = (fieldManager: string, body: object, force = false) =>
    c.custom.patchNamespacedCustomObject(
      { ...ref, name: 'owned', body, fieldManager, force },
      apply,
    );

  it('a create owns what it set: an apply changing it is 409 with a cause per field, force takes it', async () => {
    const created = {
      ...directiveBody('owned', [istiod]),
      metadata: { name: 'owned', labels: { team: 'mesh' } },
    };
    await c.custom.createNamespacedCustomObject({
      ...ref,
      body: created,
      fieldManager: 'kubectl-create',
    });
    const changed = {
      ...directiveBody('owned', [gateway]),
      metadata: { name: 'owned', labels: { team: 'edge' } },
    };
    const refused = await apiError(applyAs('ci', changed), 409);
    expect(refused.details?.causes).toHaveLength(2);
    expect(refused.details?.causes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field: '.metadata.labels.team',
          message: 'conflict with "kubectl-create" using internal.gloo.solo.io/v2',
        }),
        expect.objectContaining({
          field: '.spec.podsToBounce',
          message: 'conflict with "kubectl-create" using internal.gloo.solo.io/v2',
        }),
      ]),
    );
    expect(
      (await c.custom.getNamespacedCustomObject({ ...ref, name: 'owned' })).metadata.generation,
    ).toBe(1);
    // The values it holds are shared, not a conflict; force takes the rest over.
    await applyAs('ci', created);
    const forced = await applyAs('ci', changed, true);
    expect(forced.spec.podsToBounce).toEqual([gateway]);
    // Now the create's writer has lost them: its own apply of the old values is the 409.
    await apiError(applyAs('kubectl-create', created), 409);
  });

  it("an apply that stops applying a field keeps it while another manager's write owns it", async () => {
    await applyAs('ci', {
      ...directiveBody('owned', [istiod]),
      metadata: { name: 'owned', labels: { a: '1', b: '2' } },
    });
    // A merge patch by another writer changes label b (then b is its) and adds c.
    await c.custom.patchNamespacedCustomObject(
      {
        ...ref,
        name: 'owned',
        body: { metadata: { labels: { b: '20', c: '3' } } },
        fieldManager: 'kubectl-label',
      },
      merge,
    );
    const next = await applyAs('ci', directiveBody('owned', [istiod]));
    expect(next.metadata.labels).toEqual({ b: '20', c: '3' });
  });
});
