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

  it('shorten many labels, so that a name stays one readable line of bounded size', () => {
    const labels = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`label-key-${i}.example.com/x`, 'y'.repeat(30)]),
    );
    const name = selectorJobName('istio-system/mesh', 7, { ...selector, labels });
    expect(name).toMatch(
      /^istio-system\/mesh · selector 7 · istio-system label-key-0\.example\.com\/x=y+,.*…$/,
    );
    expect(name.length).toBeLessThan(140);
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
