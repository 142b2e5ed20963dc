import { describe, expect, it } from 'vitest';
import { selectorJobLabel, selectorJobName } from '../../src/queue/names.js';

const selector = { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 2 };

describe('selector jobs as the dashboard shows them', () => {
  it('name the directive, the selector and the pods it selects', () => {
    expect(selectorJobName('istio-system/mesh', 1, selector)).toBe(
      'istio-system/mesh · selector 1 · istio-system app=istiod',
    );
    expect(selectorJobName('apps/web', 0, { ...selector, namespace: 'apps', labels: {} })).toBe(
      'apps/web · selector 0 · apps',
    );
  });

  it('say the generation, the step, the pods bounced and the batch in flight', () => {
    const name = selectorJobName('istio-system/mesh', 1, selector);
    const chosen = ['a', 'b', 'c'].map((uid) => ({ name: `p-${uid}`, uid }));
    expect(
      selectorJobLabel(name, {
        generation: 4,
        progress: { step: 'bounce', chosen, bounced: ['a'], inFlight: ['b', 'c'] },
      }),
    ).toBe(`${name} — generation 4, bounce, 1/3 pods bounced, batch of 2 in flight`);
    expect(selectorJobLabel(name, { generation: 4, progress: { step: 'rootCertSync' } })).toBe(
      `${name} — generation 4, rootCertSync`,
    );
    expect(selectorJobLabel(name, undefined)).toBe(name);
  });
});
