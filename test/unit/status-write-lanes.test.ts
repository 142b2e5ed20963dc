// Reports of one run that come while the directive's status write is in flight are written
// together after it: one merge patch, one Event per reason, each report answered once its own
// transition is written (a selector's pods are in podsBounced before it bounces anything).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directiveManifest } from '../../src/stack/sim-stack.js';
import type { RunRef } from '../../src/status/moments.js';
import type { DirectiveEvent } from '../../src/kube/gateway.js';
import { eventsOf } from '../../src/status/composed.js';
import { StatusReporter } from '../../src/status/reporter.js';
import { startStatusFixture, type StatusFixture } from '../support/status-fixture.js';

const NS = 'lanes';
const SELECTORS = 6;

describe('StatusReporter write lanes', () => {
  let fixture: StatusFixture;
  beforeAll(async () => {
    fixture = await startStatusFixture(21);
  });
  afterAll(async () => fixture.close());

  it('writes the choices reported during a write in one patch and one PodsSelected Event', async () => {
    const { sim, kube, writer } = fixture;
    const selectors = Array.from({ length: SELECTORS }, (_, i) => ({
      namespace: NS,
      labels: { app: `a${i}` },
      waitForReplicas: 0,
    }));
    const created = sim.applyDirective(directiveManifest(NS, 'many', selectors)) as {
      metadata: { uid: string; generation: number };
    };
    await kube.patchDirectiveStatus(await kube.getDirective({ namespace: NS, name: 'many' }), {
      observedGeneration: 1,
      state: 'PENDING',
    });
    const read = await kube.getDirective({ namespace: NS, name: 'many' });
    sim.resetRequests();
    const reporter = new StatusReporter(writer);
    const run = (index: number): RunRef => ({
      generation: 1,
      selectorIndex: index,
      selectorCount: SELECTORS,
      selector: selectors[index]!,
    });
    const target = (index: number) => ({
      namespace: NS,
      name: 'many',
      uid: created.metadata.uid,
      generation: created.metadata.generation,
      selectorIndex: index,
    });
    const outcomes = await Promise.all(
      selectors.map((_, index) =>
        reporter.report(target(index), run(index), { kind: 'chosen', names: [`p${index}`] }, read),
      ),
    );
    expect(outcomes).toEqual(Array(SELECTORS).fill('written'));
    const status = sim.getDirective(NS, 'many')?.status as {
      podsBounced: { bouncedPods: string[] }[];
    };
    expect(status.podsBounced.map((entry) => entry.bouncedPods)).toEqual(
      selectors.map((_, index) => [`p${index}`]),
    );
    // The first went out alone; the five reported while it was in flight, together after it.
    const patches = sim
      .requests()
      .filter((r) => r.subresource === 'status' && r.method === 'PATCH');
    expect(patches.map((r) => r.status)).toEqual([200, 200]);
    const events = sim.events() as { reason: string; message: string }[];
    const selected = events.filter((e) => e.reason === 'PodsSelected');
    expect(selected).toHaveLength(1);
    for (let index = 1; index < SELECTORS; index += 1) {
      expect(selected[0]!.message).toContain(`Selector ${index}: bouncing 1 pod(s): p${index}.`);
    }
    // The first choice is also the run's start, told in its own Event.
    expect(events.filter((e) => e.reason === 'Bouncing')).toHaveLength(1);
  });

  it('joins the messages of one reason as sentences, never run together', () => {
    const ended = (message: string): DirectiveEvent => ({
      type: 'Warning',
      reason: 'Aborted',
      message,
    });
    const joined = eventsOf([
      { event: ended('selector 3: aborted') },
      { event: ended('selector 4: aborted') },
    ]);
    expect(joined).toEqual([
      expect.objectContaining({ message: 'selector 3: aborted. selector 4: aborted.' }),
    ]);
  });
});
