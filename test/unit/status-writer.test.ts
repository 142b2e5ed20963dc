// The status writer against the simulator: a 409 re-reads and re-applies the transition, a newer
// generation is "stale" and a deleted directive "gone", and neither is ever written.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KubeGateway } from '../../src/kube/gateway.js';
import type { Simulator } from '../../src/sim/index.js';
import { directiveManifest } from '../../src/stack/sim-stack.js';
import { isRetryable } from '../../src/errors.js';
import { transitionFor } from '../../src/status/moments.js';
import { accepted } from '../../src/status/moments.js';
import { StatusConflictError, type StatusWriter } from '../../src/status/writer.js';
import { startStatusFixture, type StatusFixture } from '../support/status-fixture.js';

const NS = 'status';
const selectors = [{ namespace: NS, labels: { app: 'a' }, waitForReplicas: 0 }];

describe('StatusWriter', () => {
  let sim: Simulator;
  let kube: KubeGateway;
  let writer: StatusWriter;
  let fixture: StatusFixture;
  beforeAll(async () => {
    fixture = await startStatusFixture(13);
    ({ sim, kube, writer } = fixture);
  });
  afterAll(async () => fixture.close());
  beforeEach(() => sim.resetRequests());

  const statusPatches = () =>
    sim.requests().filter((r) => r.subresource === 'status' && r.method === 'PATCH');
  const target = (d: { metadata: { name: string; uid: string; generation: number } }) => ({
    namespace: NS,
    name: d.metadata.name,
    uid: d.metadata.uid,
    generation: d.metadata.generation,
  });

  it('on 409 re-reads the directive and re-applies the transition', async () => {
    const created = sim.applyDirective(directiveManifest(NS, 'conflict', selectors));
    const stale = await kube.getDirective({ namespace: NS, name: 'conflict' });
    // Someone else writes status in between: the copy the writer holds is now behind.
    await kube.patchDirectiveStatus(stale, { state: 'PENDING', observedGeneration: 1 });
    sim.resetRequests();

    expect(
      await writer.apply(
        target(created),
        transitionFor(
          {
            generation: 1,
            selectorIndex: 0,
            selectorCount: 1,
            selector: { namespace: 'ns', labels: {} },
          },
          { kind: 'finished' },
        ),
        stale,
      ),
    ).toBe('written');
    expect(statusPatches().map((r) => r.status)).toEqual([409, 200]);
    expect(sim.getDirective(NS, 'conflict')?.status).toMatchObject({
      state: 'FINISHED',
      observedGeneration: 1,
    });
  });

  it('answers stale for a newer generation and writes nothing', async () => {
    const first = sim.applyDirective(directiveManifest(NS, 'newer', selectors));
    sim.applyDirective(
      directiveManifest(NS, 'newer', [{ ...selectors[0]!, labels: { app: 'changed' } }]),
    );
    expect(sim.getDirective(NS, 'newer')?.metadata.generation).toBe(2);
    expect(await writer.apply(target(first), accepted(1, 1))).toBe('stale');
    expect(statusPatches()).toHaveLength(0);
  });

  it("writes a run's end for its generation after the spec changed, never over a newer run's status", async () => {
    const first = sim.applyDirective(directiveManifest(NS, 'edited', selectors));
    expect(await writer.apply(target(first), accepted(1, 1))).toBe('written');
    sim.applyDirective(
      directiveManifest(NS, 'edited', [{ ...selectors[0]!, labels: { app: 'changed' } }]),
    );
    const run = { generation: 1, selectorIndex: 0, selectorCount: 1, selector: selectors[0]! };
    const failed = transitionFor(run, { kind: 'failed', cause: 'the spec changed' });
    // Progress of the old run is not written; its end is, for generation 1.
    expect(await writer.apply(target(first), transitionFor(run, { kind: 'started' }))).toBe(
      'stale',
    );
    expect(await writer.apply(target(first), failed)).toBe('written');
    expect(sim.getDirective(NS, 'edited')?.status).toMatchObject({
      state: 'FAILED',
      observedGeneration: 1,
      error: 'selector 0: the spec changed',
    });
    // Once the newer run has written, the old run's end is stale.
    const second = sim.getDirective(NS, 'edited')!;
    expect(await writer.apply(target(second), accepted(2, 1))).toBe('written');
    sim.resetRequests();
    expect(await writer.apply(target(first), failed)).toBe('stale');
    expect(statusPatches()).toHaveLength(0);
    expect(sim.getDirective(NS, 'edited')?.status).toMatchObject({
      state: 'PENDING',
      observedGeneration: 2,
    });
  });

  it('answers stale for an older issuance than the one the status tells, and writes nothing', async () => {
    const created = sim.applyDirective(directiveManifest(NS, 'later', selectors));
    const newer = '2026-11-29T12:00:00.003Z';
    expect(await writer.apply(target(created), accepted(1, 1, newer))).toBe('written');
    sim.resetRequests();
    const older = {
      generation: 1,
      issuedAt: '2026-11-29T12:00:00.002Z',
      selectorIndex: 0,
      selectorCount: 1,
      selector: { namespace: NS, labels: {} },
    };
    const olderTarget = { ...target(created), runKey: String(Date.parse(older.issuedAt)) };
    for (const moment of [{ kind: 'started' }, { kind: 'finished' }] as const) {
      expect(await writer.apply(olderTarget, transitionFor(older, moment))).toBe('stale');
    }
    expect(
      await writer.applyInOrder(olderTarget, [
        accepted(1, 1, older.issuedAt),
        transitionFor(older, { kind: 'finished' }),
      ]),
    ).toBe('stale');
    expect(statusPatches()).toHaveLength(0);
    expect(sim.getDirective(NS, 'later')?.status).toMatchObject({
      issuedAt: newer,
      state: 'PENDING',
    });
    // The run the status tells, and a later one, are written.
    const own = { ...target(created), runKey: String(Date.parse(newer)) };
    expect(
      await writer.apply(own, transitionFor({ ...older, issuedAt: newer }, { kind: 'finished' })),
    ).toBe('written');
  });

  it('answers gone for a deleted directive and writes nothing', async () => {
    const created = sim.applyDirective(directiveManifest(NS, 'deleted', selectors));
    sim.deleteDirective(NS, 'deleted');
    expect(await writer.apply(target(created), accepted(1, 1))).toBe('gone');
    expect(statusPatches()).toHaveLength(0);
  });

  it('answers unchanged when the status already says it, without a write', async () => {
    const created = sim.applyDirective(directiveManifest(NS, 'same', selectors));
    expect(await writer.apply(target(created), accepted(1, 1))).toBe('written');
    sim.resetRequests();
    expect(await writer.apply(target(created), accepted(1, 1))).toBe('unchanged');
    expect(statusPatches()).toHaveLength(0);
  });

  it('re-reads through a run of conflicts and writes; past its bound throws a retryable error without the API text', async () => {
    const created = sim.applyDirective(directiveManifest(NS, 'contended', selectors));
    sim.setFaults({
      status: 409,
      errorRate: 1,
      methods: ['PATCH'],
      resources: ['status'],
      limit: 9,
    });
    try {
      expect(await writer.apply(target(created), accepted(1, 1))).toBe('written');
      expect(statusPatches().map((r) => r.status)).toEqual([...Array(9).fill(409), 200]);
      sim.resetRequests();
      sim.setFaults({ status: 409, errorRate: 1, methods: ['PATCH'], resources: ['status'] });
      const finished = transitionFor(
        {
          generation: 1,
          selectorIndex: 0,
          selectorCount: 1,
          selector: { namespace: NS, labels: {} },
        },
        { kind: 'finished' },
      );
      const error = await writer.apply(target(created), finished).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StatusConflictError);
      expect(isRetryable(error)).toBe(true);
      expect((error as Error).message).not.toMatch(/Operation cannot be fulfilled|modified/);
      expect(statusPatches()).toHaveLength(10);
    } finally {
      sim.setFaults(null);
    }
  });
});
