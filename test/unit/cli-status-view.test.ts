import { describe, expect, it } from 'vitest';
import { renderStatus, type DirectiveView } from '../../src/cli/status-view.js';

const base: DirectiveView = {
  directive: 'istio-system/mesh-certs',
  generation: 3,
  status: {
    state: 'BOUNCING_PODS',
    podsBounced: [{ bouncedPods: ['a', 'b'] }, { bouncedPods: ['c', 'd', 'e'] }],
  },
  jobs: [
    { selectorIndex: 0, state: 'completed' },
    { selectorIndex: 1, state: 'delayed' },
    { selectorIndex: 2, state: 'waiting-children' },
  ],
};

describe('status lines', () => {
  it('derives each selector from the jobs and podsBounced when there is no condition', () => {
    expect(renderStatus(base, false)).toEqual([
      'istio-system/mesh-certs  BOUNCING_PODS  generation 3',
      'selector 1/3  bounced 2/2  ready ok  completed  done',
      'selector 2/3  bounced -/3  ready -/-  delayed  waiting (re-checked shortly)',
      'selector 3/3  bounced -/-  ready -/-  waiting-children  after the previous selector',
    ]);
  });

  it("reads the selector at work from the Ready condition's message", () => {
    const message =
      'selector 2/3 (bookinfo app=reviews): 2/3 pods bounced, 1/2 replacements Ready; waiting for replicas';
    const view: DirectiveView = {
      ...base,
      issuedAt: '2026-11-29T12:00:00Z',
      paused: true,
      status: {
        ...base.status,
        conditions: [{ type: 'Ready', status: 'False', reason: 'Waiting', message }],
      },
    };
    const lines = renderStatus(view, false);
    expect(lines[0]).toBe(
      `istio-system/mesh-certs  BOUNCING_PODS  generation 3  issued 2026-11-29T12:00:00Z  PAUSED  — ${message}`,
    );
    expect(lines[2]).toBe('selector 2/3  bounced 2/3  ready 1/2  delayed  waiting for replicas');
    expect(renderStatus(view, true)[2]).toBe(
      'selector 2/3  ███████░░░ bounced 2/3  ███░░░ ready 1/2  delayed  waiting for replicas',
    );
  });

  it('says that a run still PENDING waits for a free worker, not for its own selectors', () => {
    const view: DirectiveView = {
      directive: 'bookinfo/web',
      generation: 1,
      status: {
        state: 'PENDING',
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'Pending',
            message: 'queued: 2 selector(s) to bounce',
          },
        ],
      },
      jobs: [
        { selectorIndex: 0, state: 'waiting' },
        { selectorIndex: 1, state: 'waiting-children' },
      ],
    };
    expect(renderStatus(view, false)).toEqual([
      'bookinfo/web  PENDING  generation 1  — queued: 2 selector(s) to bounce',
      'selector 1/2  bounced -/-  ready -/-  waiting  queued for a free worker',
      'selector 2/2  bounced -/-  ready -/-  waiting-children  after the previous selector',
    ]);
  });

  it("shows a failed selector's reason", () => {
    const view: DirectiveView = {
      ...base,
      status: { state: 'FAILED', error: 'selector 1: timed out after 600s waiting for replicas' },
      jobs: [
        { selectorIndex: 0, state: 'completed' },
        {
          selectorIndex: 1,
          state: 'failed',
          failedReason: 'timed out after 600s waiting for replicas',
        },
        { selectorIndex: 2, state: 'waiting-children' },
      ],
    };
    const lines = renderStatus(view, false);
    expect(lines[0]).toMatch(/FAILED {2}generation 3 {2}— selector 1: timed out/);
    expect(lines[2]).toBe(
      'selector 2/3  bounced -/-  ready -/-  failed  timed out after 600s waiting for replicas',
    );
    // It waits for a retry of the failed one, not for its turn.
    expect(lines[3]).toBe(
      'selector 3/3  bounced -/-  ready -/-  waiting-children  stopped: selector 2/3 failed',
    );
  });
});

describe('status of a run of many selectors', () => {
  // 1000 selectors: 120 done, 60 in progress (pods chosen, job delayed), the rest waiting.
  const count = 1000;
  const view: DirectiveView = {
    directive: 'gloo-mesh/mesh-certs',
    generation: 1,
    status: {
      state: 'BOUNCING_PODS',
      podsBounced: Array.from({ length: 180 }, (_, i) => ({ bouncedPods: [`w${i}-a`, `w${i}-b`] })),
    },
    jobs: Array.from({ length: count }, (_, i) => ({
      selectorIndex: i,
      state: i < 120 ? 'completed' : 'delayed',
    })),
  };

  it('summarizes in one line and lists the oldest selectors in progress', () => {
    const lines = renderStatus(view, false);
    expect(lines[1]).toBe(
      '120/1000 selectors done, 60 in progress, 820 waiting (0 gated), oldest in progress: selector 121',
    );
    expect(lines.slice(2, 12).map((line) => line.split('  ')[0])).toEqual(
      Array.from({ length: 10 }, (_, i) => `selector ${121 + i}/1000`),
    );
    expect(lines[12]).toBe('… 50 more in progress (--all lists every selector)');
    expect(lines).toHaveLength(13);
  });

  it('draws every selector with --all', () => {
    expect(renderStatus(view, false, true)).toHaveLength(1 + count);
  });

  it("takes the run's own count of selectors in progress from Ready: chosen pods alone are not", () => {
    // 60 have chosen their pods, but the worker says 50 are in progress (K = 50): the rest wait.
    const ready = {
      type: 'Ready',
      status: 'False',
      reason: 'Bouncing',
      message:
        '120/1000 selectors done, 50 in progress, 830 waiting; oldest in progress: selector 121 (mesh-1 app=w); selector 170: 1/2 bounced',
    };
    const lines = renderStatus({ ...view, status: { ...view.status, conditions: [ready] } }, false);
    expect(lines[1]).toBe(
      '120/1000 selectors done, 50 in progress, 830 waiting (0 gated), oldest in progress: selector 121',
    );
    expect(lines[12]).toBe('… 40 more in progress (--all lists every selector)');
  });
});
