// DESIGN §4 Guarantees, bounceMode rollout: a FINISHED run has replaced every pod it chose, every
// chosen pod gone and every owner's rollout complete. kubectl's rules call a Deployment rolled out
// while its old ReplicaSet's last pods are still terminating (they still hold the old
// certificate), so a complete rollout alone does not make a selector done; nor does a pause and a
// resume while the owners roll.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAUSED_ANNOTATION } from '../../src/directive/types.js';
import { podUids } from '../support/guarantees.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const POLL_MS = 100;
/** Old pods stay Terminating far longer than a status poll takes to see FINISHED. */
const GRACE_MS = 2000;

describe('bounceMode rollout: FINISHED means replaced', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('rollout-replaced', { env: { POLL_INTERVAL_MS: String(POLL_MS) } });
  });
  afterAll(async () => h.close());

  function addDeployment(namespace: string, name: string): string[] {
    const labels = { tier: 'mesh', app: name };
    h.sim.addWorkload({
      namespace,
      name,
      kind: 'Deployment',
      labels,
      replicas: 4,
      readinessDelayMs: 100,
      terminationGraceMs: GRACE_MS,
    });
    return podUids(h, namespace, labels);
  }

  /** The chosen pods the simulator still holds, Terminating ones included. */
  function notGone(namespace: string, chosen: readonly string[]): string[] {
    const live = new Set(podUids(h, namespace));
    return chosen.filter((uid) => live.has(uid));
  }

  function generation(namespace: string, name: string): number | undefined {
    return (h.sim.getWorkload('Deployment', namespace, name) as any)?.metadata?.generation;
  }

  function setPaused(manifest: any, paused: boolean): void {
    const { namespace, name } = manifest.metadata;
    const annotations = paused ? { [PAUSED_ANNOTATION]: 'true' } : {};
    h.sim.applyDirective({ ...manifest, metadata: { namespace, name, annotations } });
  }

  it('is not FINISHED while the old ReplicaSet’s last pods are terminating', async () => {
    const namespace = 'replaced-grace';
    const chosen = addDeployment(namespace, 'web');
    const manifest = directive(namespace, 'restart', [
      { namespace, labels: { tier: 'mesh' }, waitForReplicas: 4, bounceMode: 'rollout' },
    ]);
    h.sim.applyDirective(manifest);
    expect((await h.post({ directive: { namespace, name: 'restart' } })).status).toBe(202);

    await waitForState(h, namespace, 'restart', 'FINISHED');
    expect(notGone(namespace, chosen)).toEqual([]);
    expect(h.sim.workloadRollout('Deployment', namespace, 'web').done).toBe(true);
    expect(generation(namespace, 'web')).toBe(2);
  });

  it('after a pause and a resume during the rollouts, FINISHED has every chosen pod gone', async () => {
    const namespace = 'replaced-paused';
    const first = addDeployment(namespace, 'a');
    const second = addDeployment(namespace, 'b');
    // maxUnavailable 1: one owner rolls at a time, so the pause falls between the two restarts.
    const manifest = directive(namespace, 'restart', [
      {
        namespace,
        labels: { tier: 'mesh' },
        waitForReplicas: 8,
        maxUnavailable: 1,
        bounceMode: 'rollout',
      },
    ]);
    h.sim.applyDirective(manifest);
    expect((await h.post({ directive: { namespace, name: 'restart' } })).status).toBe(202);

    await eventually('Deployment a restarted', () =>
      generation(namespace, 'a') === 2 ? true : undefined,
    );
    setPaused(manifest, true);
    await eventually('the Ready condition to say Paused', () =>
      (h.sim.getDirective(namespace, 'restart') as any)?.status?.conditions?.find(
        (c: any) => c.type === 'Ready' && c.reason === 'Paused',
      ),
    );
    // The rollout already sent goes on while paused; the next owner is not restarted.
    await eventually('Deployment a rolled out', () =>
      h.sim.workloadRollout('Deployment', namespace, 'a').done ? true : undefined,
    );
    await eventually(
      'the old pods of a gone',
      () => (notGone(namespace, first).length === 0 ? true : undefined),
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS));
    expect(generation(namespace, 'b')).toBe(1);
    expect(h.sim.getDirective(namespace, 'restart')?.status?.state).toBe('BOUNCING_PODS');

    setPaused(manifest, false);
    await waitForState(h, namespace, 'restart', 'FINISHED');
    expect(notGone(namespace, [...first, ...second])).toEqual([]);
    for (const name of ['a', 'b']) {
      expect(h.sim.workloadRollout('Deployment', namespace, name).done, name).toBe(true);
      expect(generation(namespace, name), name).toBe(2);
    }
  });
});
