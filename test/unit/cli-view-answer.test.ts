import { describe, expect, it } from 'vitest';
import { directiveViewOf } from '../../src/cli/view-answer.js';

const answer = {
  directive: 'istio-system/mesh-certs',
  generation: 3,
  paused: false,
  inProgress: true,
  status: {
    state: 'BOUNCING_PODS',
    podsBounced: [{ bouncedPods: ['a', 'b'] }],
    conditions: [{ type: 'Ready', status: 'False', reason: 'Bouncing', message: 'selector 1/2' }],
  },
  jobs: [
    { selectorIndex: 0, jobId: 'x', state: 'completed', attemptsMade: 1, failedReason: null },
    { selectorIndex: 1, jobId: 'y', state: 'waiting-children', attemptsMade: 0 },
  ],
};

describe('the status answer, as the client trusts it', () => {
  it('keeps what status shows of a real answer', () => {
    expect(directiveViewOf(answer, 'istio-system/mesh-certs')).toEqual({
      directive: 'istio-system/mesh-certs',
      generation: 3,
      status: {
        state: 'BOUNCING_PODS',
        podsBounced: [{ bouncedPods: ['a', 'b'] }],
        conditions: [
          { type: 'Ready', status: 'False', reason: 'Bouncing', message: 'selector 1/2' },
        ],
      },
      jobs: [
        { selectorIndex: 0, state: 'completed' },
        { selectorIndex: 1, state: 'waiting-children' },
      ],
    });
  });

  it.each([
    [
      'a selector index far out of bounds',
      { jobs: [{ selectorIndex: 50_000_000, state: 'x' }] },
      /jobs\[0\]\.selectorIndex is 50000000/,
    ],
    ['a negative index', { jobs: [{ selectorIndex: -1, state: 'x' }] }, /selectorIndex is -1/],
    ['a fractional index', { jobs: [{ selectorIndex: 0.5, state: 'x' }] }, /selectorIndex is 0\.5/],
    [
      'an index that is text',
      { jobs: [{ selectorIndex: '1', state: 'x' }] },
      /selectorIndex is string/,
    ],
    ['jobs that are not a list', { jobs: { 0: 1 } }, /jobs is not a list/],
    [
      'too many jobs',
      { jobs: Array.from({ length: 10_001 }, () => ({})) },
      /jobs has 10001 entries/,
    ],
    [
      'too many podsBounced',
      { status: { podsBounced: new Array(10_001).fill({}) } },
      /status\.podsBounced has 10001/,
    ],
    ['a status that is text', { status: 'FAILED' }, /status is not an object/],
    ['a state that is a number', { status: { state: 3 } }, /status\.state is not a string/],
    ['a job without a state', { jobs: [{ selectorIndex: 0 }] }, /jobs\[0\]\.state is missing/],
    ['a generation that is text', { generation: '3' }, /generation is not a whole number/],
  ])('refuses %s, naming the field', (_what, body, message) => {
    expect(() => directiveViewOf(body, 'ns/name')).toThrow(message);
    expect(() => directiveViewOf(body, 'ns/name')).toThrow(
      /^pod-bouncer's answer is not a directive's status: .*\.$/,
    );
  });

  it('makes every string plain and cuts it short', () => {
    const view = directiveViewOf(
      { status: { error: `boom\x1b[2J${'x'.repeat(5000)}` }, jobs: [] },
      'ns/name',
    );
    expect(view.directive).toBe('ns/name');
    expect(view.status.error).toMatch(/^boomx+$/);
    expect(view.status.error!.length).toBeLessThanOrEqual(1000);
  });
});
