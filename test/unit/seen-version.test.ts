import { describe, expect, it } from 'vitest';
import type { Directive } from '../../src/directive/types.js';
import type { BadEventError } from '../../src/events/errors.js';
import { normalizeBody } from '../../src/events/normalize.js';
import { atLeastAsFresh } from '../../src/ingest/directive-source.js';

const cached = (generation: number, resourceVersion: string, uid = 'u-1'): Directive => ({
  apiVersion: 'internal.gloo.solo.io/v2',
  kind: 'PodBounceDirective',
  metadata: { namespace: 'ns', name: 'd', uid, generation, resourceVersion },
  spec: { podsToBounce: [{ namespace: 'ns', labels: { app: 'a' }, waitForReplicas: 0 }] },
});

describe('what the sender saw of the directive', () => {
  it('is read from a native reference, a watch event, a bare object and a Kubernetes Event', () => {
    const native = normalizeBody({ directive: { namespace: 'ns', name: 'd', generation: 3 } });
    expect(native).toMatchObject({ kind: 'reference', seen: { generation: 3 } });

    const metadata = {
      namespace: 'ns',
      name: 'd',
      uid: 'u-1',
      generation: 2,
      resourceVersion: '77',
    };
    const object = { apiVersion: 'internal.gloo.solo.io/v2', kind: 'PodBounceDirective', metadata };
    const seen = { uid: 'u-1', generation: 2, resourceVersion: '77' };
    expect(normalizeBody({ type: 'MODIFIED', object })).toMatchObject({ seen });
    expect(normalizeBody(object)).toMatchObject({ seen });

    const involvedObject = {
      kind: 'PodBounceDirective',
      namespace: 'ns',
      name: 'd',
      uid: 'u-1',
      resourceVersion: '80',
    };
    expect(normalizeBody({ kind: 'Event', involvedObject, reason: 'Issued' })).toMatchObject({
      seen: { uid: 'u-1', resourceVersion: '80' },
    });
  });

  it('is absent from a plain reference, and a malformed relayed field is left out', () => {
    expect(normalizeBody({ directive: { namespace: 'ns', name: 'd' } })).not.toHaveProperty('seen');
    const metadata = { namespace: 'ns', name: 'd', generation: 'two', resourceVersion: 'abc' };
    const object = { apiVersion: 'internal.gloo.solo.io/v2', kind: 'PodBounceDirective', metadata };
    expect(normalizeBody(object)).not.toHaveProperty('seen');
  });

  it('rejects a native generation that is not a positive integer, naming the field', () => {
    for (const generation of [0, -1, 1.5, '3']) {
      expect(() =>
        normalizeBody({ directive: { namespace: 'ns', name: 'd', generation } }),
      ).toThrow(expect.objectContaining({ field: 'directive.generation' }) as BadEventError);
    }
  });
});

describe('atLeastAsFresh', () => {
  it('trusts a cache that holds the generation the sender saw, or a newer one', () => {
    expect(atLeastAsFresh(cached(3, '10'), { generation: 3 })).toBe(true);
    expect(atLeastAsFresh(cached(4, '12'), { generation: 3 })).toBe(true);
    expect(atLeastAsFresh(cached(3, '10'), { generation: 4 })).toBe(false);
  });

  it('falls back to resourceVersion order when only that was carried', () => {
    expect(atLeastAsFresh(cached(3, '100'), { resourceVersion: '99' })).toBe(true);
    expect(atLeastAsFresh(cached(3, '100'), { resourceVersion: '101' })).toBe(false);
  });

  it('never trusts the cache without a hint, or for another object of the same name', () => {
    expect(atLeastAsFresh(cached(3, '10'), undefined)).toBe(false);
    expect(atLeastAsFresh(cached(3, '10'), { uid: 'u-2', generation: 1 })).toBe(false);
  });
});
