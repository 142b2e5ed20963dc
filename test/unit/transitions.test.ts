import { describe, expect, it } from 'vitest';
import type { DirectiveStatus } from '../../src/directive/types.js';
import { setCondition } from '../../src/status/conditions.js';
import { transitionFor, type Moment, type RunRef } from '../../src/status/moments.js';
import { accepted } from '../../src/status/moments.js';

const T0 = new Date('2026-11-29T12:00:00Z');
const T1 = new Date('2026-11-29T12:00:07Z');
const run: RunRef = {
  generation: 3,
  issuedAt: '2026-11-29T11:59:00.000Z',
  selectorIndex: 1,
  selectorCount: 3,
  selector: { namespace: 'bookinfo', labels: { app: 'reviews' } },
};

function apply(current: DirectiveStatus, moment: Moment, now = T0): DirectiveStatus {
  return { ...current, ...transitionFor(run, moment, now).patch(current) };
}

function condition(status: DirectiveStatus, type: string) {
  return status.conditions?.find((c) => c.type === type);
}

describe('status transitions', () => {
  it('accepted resets a new generation to PENDING and leaves the current one alone', () => {
    const patch = accepted(3, 2).patch({ observedGeneration: 2, state: 'FINISHED' });
    expect(patch).toMatchObject({ observedGeneration: 3, state: 'PENDING', podsBounced: [] });
    expect(condition(patch ?? {}, 'Ready')).toMatchObject({ status: 'False', reason: 'Pending' });
    expect(condition(patch ?? {}, 'Reconciling')).toMatchObject({ status: 'True' });
    expect(accepted(3, 2).patch({ observedGeneration: 3, state: 'BOUNCING_PODS' })).toBeUndefined();
  });

  it("another selector's progress records its pods but leaves a failed run FAILED", () => {
    const failed: DirectiveStatus = {
      observedGeneration: 3,
      issuedAt: run.issuedAt,
      state: 'FAILED',
      error: 'selector 4: timed out',
      podsBounced: [],
    };
    const chosen = apply(failed, { kind: 'chosen', names: ['reviews-1'] });
    expect(chosen).toMatchObject({ state: 'FAILED', error: 'selector 4: timed out' });
    expect(chosen.podsBounced?.[1]).toEqual({ bouncedPods: ['reviews-1'] });
    expect(
      transitionFor(run, { kind: 'batchBounced', counts: { bounced: 1, chosen: 1 } }, T0).patch(
        chosen,
      ),
    ).toBeUndefined();
    // The failed selector itself, retried, says BOUNCING_PODS again.
    const retried = apply(
      { ...failed, error: 'selector 1: timed out' },
      { kind: 'resumed', counts: { bounced: 0, chosen: 1 } },
    );
    expect(retried).toMatchObject({ state: 'BOUNCING_PODS', error: '' });
  });

  it('summarizes a run with several selectors in progress in one line of at most 300 characters', () => {
    const labels = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`key-${i}.example.com/name`, 'v'.repeat(40)]),
    );
    const wide: RunRef = {
      ...run,
      selectorIndex: 230,
      selectorCount: 1000,
      alongside: {
        done: 120,
        inProgress: 50,
        oldest: { index: 170, selector: { namespace: 'mesh-3', labels } },
      },
    };
    const patch = transitionFor(
      wide,
      { kind: 'batchBounced', counts: { bounced: 1, chosen: 3 } },
      T0,
    ).patch({});
    const message = condition(patch ?? {}, 'Ready')?.message ?? '';
    expect(message).toMatch(
      /^120\/1000 selectors done, 50 in progress, 830 waiting; oldest in progress: selector 171 \(mesh-3 key-0/,
    );
    expect(message.length).toBeLessThanOrEqual(300);
    // One selector in progress: its own line, as in a chain.
    const alone = { ...wide, alongside: { done: 120, inProgress: 1 } };
    const own = transitionFor(
      alone,
      { kind: 'batchBounced', counts: { bounced: 1, chosen: 3 } },
      T0,
    ).patch({});
    expect(condition(own ?? {}, 'Ready')?.message).toBe(
      'selector 231/1000 (bookinfo app=reviews): 1/3 bounced',
    );
  });

  it('accepted starts a later issuance of the same generation afresh, once', () => {
    const later = '2026-11-29T13:00:00.000Z';
    const current: DirectiveStatus = {
      observedGeneration: 3,
      issuedAt: '2026-11-29T12:00:00.000Z',
      state: 'FINISHED',
      podsBounced: [{ bouncedPods: ['a'] }],
    };
    expect(accepted(3, 2, later).patch(current)).toMatchObject({
      observedGeneration: 3,
      issuedAt: later,
      state: 'PENDING',
      error: '',
      podsBounced: [],
    });
    const pending = { ...current, ...accepted(3, 2, later).patch(current) };
    expect(accepted(3, 2, later).patch(pending)).toBeUndefined();
    // The worker of the later run, faster than the api: it starts the status afresh too.
    const laterRun: RunRef = { ...run, issuedAt: later };
    expect(transitionFor(laterRun, { kind: 'started' }).patch(current)).toMatchObject({
      issuedAt: later,
      podsBounced: [],
      state: 'BOUNCING_PODS',
    });
  });

  it('a late PENDING over the status the worker already wrote for this run changes nothing', () => {
    // The api's PENDING write failed or comes after the worker's first write: the worker's write
    // alone describes the run, and the late accepted() leaves it as it is.
    const previous: DirectiveStatus = { observedGeneration: 2, state: 'FINISHED' };
    for (const first of [{ kind: 'started' }, { kind: 'chosen', names: ['a', 'b'] }] as Moment[]) {
      const bouncing = apply(previous, first);
      expect(bouncing).toMatchObject({
        observedGeneration: 3,
        issuedAt: run.issuedAt,
        state: 'BOUNCING_PODS',
        error: '',
      });
      expect(condition(bouncing, 'Ready')).toMatchObject({
        status: 'False',
        observedGeneration: 3,
      });
      expect(condition(bouncing, 'Reconciling')).toMatchObject({ status: 'True' });
      expect(accepted(3, 3, run.issuedAt).patch(bouncing)).toBeUndefined();
      const finished = apply(bouncing, { kind: 'finished' }, T1);
      expect(accepted(3, 3, run.issuedAt).patch(finished)).toBeUndefined();
    }
    // A run without an issuance: same generation, so the same answer.
    const bare: RunRef = {
      generation: 3,
      selectorIndex: 0,
      selectorCount: 1,
      selector: run.selector,
    };
    const started = { ...previous, ...transitionFor(bare, { kind: 'started' }).patch(previous) };
    expect(started.state).toBe('BOUNCING_PODS');
    expect(accepted(3, 3).patch(started)).toBeUndefined();
  });

  it("a new generation without an issuance drops the previous run's issuedAt", () => {
    const current: DirectiveStatus = { observedGeneration: 2, issuedAt: T0.toISOString() };
    expect(accepted(3, 1).patch(current)).toMatchObject({ issuedAt: null, state: 'PENDING' });
  });

  it('started clears a FAILED error and Stalled on retry, and is a no-op when already bouncing', () => {
    const failed = apply({}, { kind: 'failed', cause: 'timed out' });
    expect(condition(failed, 'Stalled')).toMatchObject({ status: 'True', reason: 'Failed' });
    const retried = apply(failed, { kind: 'started' });
    expect(retried).toMatchObject({ state: 'BOUNCING_PODS', error: '' });
    expect(condition(retried, 'Stalled')).toBeUndefined();
    expect(condition(retried, 'Reconciling')?.status).toBe('True');
    expect(transitionFor(run, { kind: 'started' }).patch(retried)).toBeUndefined();
  });

  it('chosen sets one index of podsBounced and keeps the others', () => {
    const current = {
      observedGeneration: 3,
      issuedAt: run.issuedAt,
      podsBounced: [{ bouncedPods: ['a'] }],
    };
    const next = apply(current, { kind: 'chosen', names: ['b', 'c'] });
    expect(next.podsBounced).toEqual([{ bouncedPods: ['a'] }, { bouncedPods: ['b', 'c'] }]);
    expect(condition(next, 'Ready')?.message).toBe(
      'selector 2/3 (bookinfo app=reviews): 0/2 bounced',
    );
    expect(transitionFor(run, { kind: 'chosen', names: ['b', 'c'] }).patch(next)).toBeUndefined();
  });

  it('a selector that chooses nothing says so in a Warning Event and the message', () => {
    const transition = transitionFor(run, { kind: 'chosen', names: [] });
    expect(transition.event).toMatchObject({ type: 'Warning', reason: 'NoPodsChosen' });
    expect(condition(apply({}, { kind: 'chosen', names: [] }), 'Ready')?.message).toMatch(
      /no pod matches/,
    );
  });

  it('says what a wait waits for, in one line', () => {
    const waiting = apply({}, { kind: 'waiting', what: 'root cert sync (ConfigMap differs)' });
    expect(condition(waiting, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Waiting',
      message:
        'selector 2/3 (bookinfo app=reviews): waiting for root cert sync (ConfigMap differs)',
    });
    const batch = apply(
      {},
      {
        kind: 'waiting',
        counts: { bounced: 4, chosen: 10, ready: 2, wanted: 4 },
      },
    );
    expect(condition(batch, 'Ready')?.message).toBe(
      'selector 2/3 (bookinfo app=reviews): 4/10 bounced, 2/4 replacements Ready',
    );
    expect(transitionFor(run, { kind: 'waiting', what: 'x' }).event).toBeUndefined();
  });

  it('moves lastTransitionTime only when a condition status changes', () => {
    const bouncing = apply({}, { kind: 'chosen', names: ['a'] }, T0);
    const waiting = apply(bouncing, { kind: 'waiting', what: 'x' }, T1);
    expect(condition(waiting, 'Ready')?.lastTransitionTime).toBe('2026-11-29T12:00:00Z');
    const finished = apply(waiting, { kind: 'finished' }, T1);
    expect(condition(finished, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Finished',
      observedGeneration: 3,
      lastTransitionTime: '2026-11-29T12:00:07Z',
    });
    expect(condition(finished, 'Reconciling')).toBeUndefined();
    expect(condition(finished, 'Stalled')).toBeUndefined();
    expect(finished.issuedAt).toBe(run.issuedAt);
  });

  it('aborted is FAILED with the cause "aborted" and Stalled reason Aborted', () => {
    const aborted = apply({}, { kind: 'aborted' });
    expect(aborted).toMatchObject({ state: 'FAILED', error: 'selector 1: aborted' });
    expect(condition(aborted, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'Aborted',
      message: 'selector 1: aborted',
    });
    expect(condition(aborted, 'Ready')?.reason).toBe('Aborted');
  });

  it('paused and resumed swap the Ready reason', () => {
    const counts = { bounced: 2, chosen: 10 };
    const paused = apply({}, { kind: 'paused', counts });
    expect(condition(paused, 'Ready')).toMatchObject({ reason: 'Paused' });
    expect(condition(paused, 'Reconciling')?.status).toBe('True');
    expect(condition(apply(paused, { kind: 'resumed', counts }), 'Ready')?.reason).toBe('Bouncing');
  });

  it('setCondition keeps the time of an unchanged status', () => {
    const first = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'A', message: '' },
      T0,
    );
    const second = setCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'B', message: 'm' },
      T1,
    );
    expect(second[0]).toMatchObject({ reason: 'B', lastTransitionTime: '2026-11-29T12:00:00Z' });
  });
});
