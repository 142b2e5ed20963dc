import { describe, expect, it } from 'vitest';
import { accepted, bouncing, failed, finished, podsChosen } from '../../src/status/transitions.js';

describe('status transitions', () => {
  it('accepted resets a new generation to PENDING and leaves the current one alone', () => {
    expect(accepted(3, 2).patch({ observedGeneration: 2, state: 'FINISHED' })).toEqual({
      observedGeneration: 3,
      issuedAt: null,
      state: 'PENDING',
      error: '',
      podsBounced: [],
    });
    expect(accepted(3, 2).patch({ observedGeneration: 3, state: 'BOUNCING_PODS' })).toBeUndefined();
  });

  it('accepted starts a later issuance of the same generation afresh, once', () => {
    const later = '2026-11-29T13:00:00.000Z';
    const current = {
      observedGeneration: 3,
      issuedAt: '2026-11-29T12:00:00.000Z',
      state: 'FINISHED' as const,
      podsBounced: [{ bouncedPods: ['a'] }],
    };
    expect(accepted(3, 2, later).patch(current)).toEqual({
      observedGeneration: 3,
      issuedAt: later,
      state: 'PENDING',
      error: '',
      podsBounced: [],
    });
    expect(
      accepted(3, 2, later).patch({
        observedGeneration: 3,
        issuedAt: later,
        state: 'BOUNCING_PODS',
      }),
    ).toBeUndefined();
    // The worker of the later run, faster than the api: it starts the status afresh too.
    expect(bouncing(3, 0, later).patch(current)).toMatchObject({
      issuedAt: later,
      podsBounced: [],
    });
  });

  it('bouncing clears a FAILED error on retry and is a no-op when already bouncing', () => {
    expect(
      bouncing(3, 1).patch({ observedGeneration: 3, state: 'FAILED', error: 'selector 1: x' }),
    ).toEqual({ observedGeneration: 3, state: 'BOUNCING_PODS', error: '' });
    expect(bouncing(3, 0).patch({ observedGeneration: 3, state: 'BOUNCING_PODS' })).toBeUndefined();
  });

  it('podsChosen sets one index and keeps the others', () => {
    const current = { observedGeneration: 3, podsBounced: [{ bouncedPods: ['a'] }] };
    expect(podsChosen(3, 1, ['b', 'c']).patch(current)).toEqual({
      observedGeneration: 3,
      podsBounced: [{ bouncedPods: ['a'] }, { bouncedPods: ['b', 'c'] }],
    });
    expect(podsChosen(3, 0, ['a']).patch(current)).toBeUndefined();
  });

  it('failed names the selector first', () => {
    expect(failed(3, 2, 'timed out').patch({})).toEqual({
      observedGeneration: 3,
      state: 'FAILED',
      error: 'selector 2: timed out',
    });
    expect(finished(3).patch({ observedGeneration: 3, state: 'FINISHED' })).toBeUndefined();
  });
});
