import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/sim/objects.js';
import { ObjectStore } from '../../src/sim/store.js';

function pod(name: string, controller?: string, namespace = 'ns'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      ...(controller === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'ReplicaSet',
                name: controller,
                uid: controller,
                controller: true,
              },
            ],
          }),
    },
  } as KubeObject;
}

/** What a controller owns, by the index and by scanning its namespace: the two must agree. */
function owned(store: ObjectStore, controller: string): { indexed: string[]; scanned: string[] } {
  const indexed: string[] = [];
  const scanned: string[] = [];
  store.scanControlled('pods', controller, (obj) => indexed.push(obj.metadata.name));
  store.scan('pods', 'ns', (obj) => {
    const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
    if (ref?.uid === controller) scanned.push(obj.metadata.name);
  });
  return { indexed, scanned };
}

describe('simulator store: objects by controller', () => {
  it('follows creates, updates, a change of controller, deletes and a re-created name', () => {
    const store = new ObjectStore();
    for (const name of ['a-1', 'a-2', 'a-3']) store.create('pods', pod(name, 'rs-a'));
    store.create('pods', pod('b-1', 'rs-b'));
    store.create('pods', pod('free'));
    expect(owned(store, 'rs-a')).toEqual({
      indexed: ['a-1', 'a-2', 'a-3'],
      scanned: ['a-1', 'a-2', 'a-3'],
    });

    // An update that keeps the controller keeps the object's place.
    store.update('pods', { ...pod('a-1', 'rs-a'), status: { phase: 'Running' } });
    expect(owned(store, 'rs-a').indexed).toEqual(['a-1', 'a-2', 'a-3']);

    // Orphaned, then adopted by another controller.
    store.update('pods', pod('a-2'));
    expect(owned(store, 'rs-a')).toEqual({ indexed: ['a-1', 'a-3'], scanned: ['a-1', 'a-3'] });
    // An adopted object joins the end of its new controller's list (the sim's controllers never
    // adopt; the namespace's own order would put it first).
    store.update('pods', pod('a-2', 'rs-b'));
    expect(owned(store, 'rs-b').indexed).toEqual(['b-1', 'a-2']);
    expect(owned(store, 'rs-b').scanned.sort()).toEqual(['a-2', 'b-1']);

    // Deleted, then a pod of the same name created again (a StatefulSet's replacement).
    store.remove('pods', 'ns', 'a-1');
    expect(owned(store, 'rs-a')).toEqual({ indexed: ['a-3'], scanned: ['a-3'] });
    store.create('pods', pod('a-1', 'rs-a'));
    expect(owned(store, 'rs-a')).toEqual({ indexed: ['a-3', 'a-1'], scanned: ['a-3', 'a-1'] });

    // What is visited is the stored object, with its resourceVersion.
    store.scanControlled('pods', 'rs-a', (obj) =>
      expect(obj.metadata.resourceVersion).toBeDefined(),
    );
    expect(owned(store, 'nobody')).toEqual({ indexed: [], scanned: [] });
  });
});
