// The line `status --watch` and the demo print when a gate holds a run and when it goes on again:
// one per closing (not per evaluation), naming the selector, the gate and why.
import { describe, expect, it } from 'vitest';

import { gateChange } from '../../src/status/gate-change.js';
import { renderStatus, type DirectiveView } from '../../src/cli/status-view.js';

const gated = (message: string) => ({
  reason: 'Gated',
  message: `selector 2/3 (bookinfo app=reviews): 1/4 bounced, 1/1 replacements Ready; ${message}`,
});

describe('the gate change line', () => {
  it('names the selector, the gate and why when a gate closes', () => {
    const closed = gated('gate alerts "MeshDown" closed: firing: MeshDown');
    expect(
      gateChange({ reason: 'Bouncing', message: 'selector 2/3 (bookinfo app=reviews): …' }, closed),
    ).toBe(
      'selector 2/3 (bookinfo app=reviews) gated: gate alerts "MeshDown" closed: firing: MeshDown',
    );
    // A first view that is already gated shows it too.
    expect(gateChange(undefined, closed)).toMatch(/ gated: gate alerts/);
  });

  it('says nothing while the same gate stays closed, and names another one that closes', () => {
    const first = gated('gate query "x" closed: 0.5 is below 0.99');
    expect(gateChange(first, gated('gate query "x" closed: 0.5 is below 0.99'))).toBeUndefined();
    expect(
      gateChange(first, gated('gate windows 02:00-05:00 UTC closed: outside its windows')),
    ).toBe(
      'selector 2/3 (bookinfo app=reviews) gated: gate windows 02:00-05:00 UTC closed: outside its windows',
    );
  });

  it('says the run resumed when every gate is open again, not when it is paused or failed', () => {
    const closed = gated('gate alerts "MeshDown" closed: firing: MeshDown');
    for (const reason of ['Bouncing', 'Waiting', 'Finished']) {
      expect(
        gateChange(closed, { reason, message: 'selector 2/3 (bookinfo app=reviews): …' }),
      ).toBe('selector 2/3 (bookinfo app=reviews) resumed: every gate open');
    }
    for (const reason of ['Paused', 'Failed', 'Aborted']) {
      expect(gateChange(closed, { reason, message: '…' })).toBeUndefined();
    }
    expect(gateChange({ reason: 'Bouncing' }, { reason: 'Waiting' })).toBeUndefined();
  });

  it('shows the closed gate and why on the selector line of status', () => {
    const view: DirectiveView = {
      directive: 'bookinfo/certs',
      status: {
        state: 'BOUNCING_PODS',
        podsBounced: [{ bouncedPods: ['a'] }, { bouncedPods: ['b', 'c', 'd', 'e'] }],
        conditions: [
          { type: 'Ready', status: 'False', ...gated('gate query "x" closed: 0.5 is below 0.99') },
        ],
      },
      jobs: [
        { selectorIndex: 0, state: 'completed' },
        { selectorIndex: 1, state: 'delayed' },
      ],
    };
    expect(renderStatus(view, false)[2]).toBe(
      'selector 2/2  bounced 1/4  ready 1/1  delayed  gate query "x" closed: 0.5 is below 0.99',
    );
  });
});
