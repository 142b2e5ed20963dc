import { describe, expect, it } from 'vitest';
import type { DirectiveState } from '../../src/directive/types.js';
import { observeTransition, recordBuildInfo } from '../../src/metrics/directives.js';
import { registry } from '../../src/metrics/registry.js';
import { transitionFor } from '../../src/status/moments.js';
import type { Transition } from '../../src/status/projection.js';
import { selectorRun, writtenTransition } from '../support/written.js';

function written(name: string, state: DirectiveState, transition: Transition) {
  const target = { namespace: 'ns', name, uid: `u-${name}`, generation: 1 };
  const result = writtenTransition(transition, { observedGeneration: 1 }, target);
  return {
    ...result,
    directive: { ...result.directive, status: { observedGeneration: 1, state } },
  };
}
const bouncing = () => transitionFor(selectorRun(0, 2, 1), { kind: 'started' });
const finished = () => transitionFor(selectorRun(1, 2, 1), { kind: 'finished' });

async function values(
  metric: string,
): Promise<{ labels: Record<string, unknown>; value: number }[]> {
  const found = (await registry.getMetricsAsJSON()).find((m) => m.name === metric);
  return found?.values ?? [];
}

describe('directive metrics from written transitions', () => {
  it('set 1 for the current state and 0 for the others, and when the run finished', async () => {
    observeTransition(written('web', 'BOUNCING_PODS', bouncing()), 1_000_000);
    observeTransition(written('web', 'FINISHED', finished()), 2_000_000);
    const states = (await values('pod_bouncer_directive_state')).filter(
      (v) => v.labels.name === 'web',
    );
    expect(Object.fromEntries(states.map((v) => [v.labels.state, v.value]))).toEqual({
      PENDING: 0,
      BOUNCING_PODS: 0,
      FAILED: 0,
      FINISHED: 1,
    });
    const at = (await values('pod_bouncer_directive_last_transition_timestamp_seconds')).find(
      (v) => v.labels.name === 'web',
    );
    expect(at?.value).toBe(2000);
    const finishedAt = (await values('pod_bouncer_directive_last_finished_timestamp_seconds')).find(
      (v) => v.labels.name === 'web',
    );
    expect(finishedAt?.value).toBe(2000);
    const transitions = await values('pod_bouncer_status_transitions_total');
    expect(transitions.find((v) => v.labels.transition === 'finished')?.value).toBeGreaterThan(0);
  });

  it('label build info with the version, the Node.js version and the role', async () => {
    recordBuildInfo('work');
    const [info] = await values('pod_bouncer_build_info');
    expect(info).toEqual({
      labels: {
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        node: process.version,
        role: 'work',
      },
      value: 1,
    });
  });
});
