// src/kube/rollout-status.ts against the rules of `kubectl rollout status`, case by case from
// kubectl's pkg/polymorphichelpers/rollout_status.go (DeploymentStatusViewer, DaemonSetStatusViewer,
// StatefulSetStatusViewer; kubernetes/kubectl at dee3483a3d6a, read 2026-07) and the cases of its
// rollout_status_test.go. kubectl's messages end in "\n", ours do not; where kubectl answers an
// error, ours is `done: false` with that error (kubectl then exits 1 instead of waiting).
import { describe, expect, it } from 'vitest';
import {
  daemonSetRolloutStatus,
  deploymentRolloutStatus,
  rolloutStatus,
  statefulSetRolloutStatus,
  type DaemonSetLike,
  type DeploymentLike,
  type RolloutState,
  type StatefulSetLike,
} from '../../src/kube/rollout-status.js';

const waiting = (message: string): RolloutState => ({ done: false, message });
const complete = (message: string): RolloutState => ({ done: true, message });
const refused = (error: string): RolloutState => ({ done: false, message: '', error });

const ONLY_ROLLING = 'rollout status is only available for RollingUpdate strategy type';

function deployment(
  generation: number,
  replicas: number | undefined,
  status: NonNullable<DeploymentLike['status']>,
): DeploymentLike {
  return {
    metadata: { name: 'foo', generation },
    spec: replicas === undefined ? {} : { replicas },
    status,
  };
}

describe('Deployment (DeploymentStatusViewer.Status)', () => {
  const cases: Array<[string, DeploymentLike, RolloutState]> = [
    [
      'generation above observedGeneration: the spec update is not observed yet',
      deployment(2, 2, {
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 2,
        availableReplicas: 2,
      }),
      waiting('Waiting for deployment spec update to be observed...'),
    ],
    [
      'no observedGeneration yet (kubectl reads 0)',
      deployment(1, 1, { replicas: 1, updatedReplicas: 1, availableReplicas: 1 }),
      waiting('Waiting for deployment spec update to be observed...'),
    ],
    [
      'Progressing with reason ProgressDeadlineExceeded: an error, not a wait',
      deployment(1, 2, {
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 1,
        availableReplicas: 1,
        conditions: [
          { type: 'Available', reason: 'MinimumReplicasAvailable' },
          { type: 'Progressing', reason: 'ProgressDeadlineExceeded' },
        ],
      }),
      refused('deployment "foo" exceeded its progress deadline'),
    ],
    [
      'ProgressDeadlineExceeded is read only once the generation is observed',
      deployment(3, 2, {
        observedGeneration: 2,
        conditions: [{ type: 'Progressing', reason: 'ProgressDeadlineExceeded' }],
      }),
      waiting('Waiting for deployment spec update to be observed...'),
    ],
    [
      'another Progressing reason is progress, not an error',
      deployment(1, 2, {
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 2,
        availableReplicas: 2,
        conditions: [{ type: 'Progressing', reason: 'NewReplicaSetAvailable' }],
      }),
      complete('deployment "foo" successfully rolled out'),
    ],
    [
      'updatedReplicas below spec.replicas (kubectl test1: generation 0 <= observed 1)',
      deployment(0, 1, {
        observedGeneration: 1,
        replicas: 1,
        updatedReplicas: 0,
        availableReplicas: 1,
      }),
      waiting(
        'Waiting for deployment "foo" rollout to finish: 0 out of 1 new replicas have been updated...',
      ),
    ],
    [
      'replicas above updatedReplicas: old replicas pending termination (test2)',
      deployment(1, 1, {
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 1,
        availableReplicas: 2,
      }),
      waiting(
        'Waiting for deployment "foo" rollout to finish: 1 old replicas are pending termination...',
      ),
    ],
    [
      'availableReplicas below updatedReplicas (test3)',
      deployment(1, 2, {
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 2,
        availableReplicas: 1,
      }),
      waiting(
        'Waiting for deployment "foo" rollout to finish: 1 of 2 updated replicas are available...',
      ),
    ],
    [
      'every replica updated and available (test4)',
      deployment(1, 2, {
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 2,
        availableReplicas: 2,
      }),
      complete('deployment "foo" successfully rolled out'),
    ],
    [
      'no spec.replicas: the updated count is not compared with it',
      deployment(1, undefined, {
        observedGeneration: 1,
        replicas: 0,
        updatedReplicas: 0,
        availableReplicas: 0,
      }),
      complete('deployment "foo" successfully rolled out'),
    ],
  ];
  it.each(cases)('%s', (_name, object, expected) => {
    expect(deploymentRolloutStatus(object)).toEqual(expected);
    expect(rolloutStatus('Deployment', object)).toEqual(expected);
  });
});

function daemonSet(
  generation: number,
  status: NonNullable<DaemonSetLike['status']>,
  /** null: no updateStrategy.type (kubectl reads ""). */
  type: string | null = 'RollingUpdate',
): DaemonSetLike {
  return {
    metadata: { name: 'foo', generation },
    spec: type === null ? {} : { updateStrategy: { type } },
    status,
  };
}

describe('DaemonSet (DaemonSetStatusViewer.Status)', () => {
  const cases: Array<[string, DaemonSetLike, RolloutState]> = [
    [
      'OnDelete: kubectl refuses (TestDaemonSetStatusViewerStatusWithWrongUpdateStrategyType)',
      daemonSet(1, { observedGeneration: 1 }, 'OnDelete'),
      refused(ONLY_ROLLING),
    ],
    [
      'no update strategy type: kubectl reads "" and refuses as well',
      daemonSet(1, { observedGeneration: 1, desiredNumberScheduled: 1 }, null),
      refused(ONLY_ROLLING),
    ],
    [
      'generation above observedGeneration (test4)',
      daemonSet(2, {
        observedGeneration: 1,
        updatedNumberScheduled: 2,
        desiredNumberScheduled: 2,
        numberAvailable: 2,
      }),
      waiting('Waiting for daemon set spec update to be observed...'),
    ],
    [
      'updatedNumberScheduled below desiredNumberScheduled (test1)',
      daemonSet(0, {
        observedGeneration: 1,
        updatedNumberScheduled: 0,
        desiredNumberScheduled: 1,
        numberAvailable: 0,
      }),
      waiting(
        'Waiting for daemon set "foo" rollout to finish: 0 out of 1 new pods have been updated...',
      ),
    ],
    [
      'numberAvailable below desiredNumberScheduled (test2)',
      daemonSet(1, {
        observedGeneration: 1,
        updatedNumberScheduled: 2,
        desiredNumberScheduled: 2,
        numberAvailable: 1,
      }),
      waiting(
        'Waiting for daemon set "foo" rollout to finish: 1 of 2 updated pods are available...',
      ),
    ],
    [
      'every pod updated and available (test3)',
      daemonSet(1, {
        observedGeneration: 1,
        updatedNumberScheduled: 2,
        desiredNumberScheduled: 2,
        numberAvailable: 2,
      }),
      complete('daemon set "foo" successfully rolled out'),
    ],
  ];
  it.each(cases)('%s', (_name, object, expected) => {
    expect(daemonSetRolloutStatus(object)).toEqual(expected);
    expect(rolloutStatus('DaemonSet', object)).toEqual(expected);
  });
});

type StatefulSetStrategy = NonNullable<StatefulSetLike['spec']>['updateStrategy'];

function statefulSet(
  generation: number,
  updateStrategy: StatefulSetStrategy,
  status: NonNullable<StatefulSetLike['status']>,
  /** null: no spec.replicas (kubectl's nil pointer). */
  replicas: number | null = 3,
): StatefulSetLike {
  return {
    metadata: { name: 'foo', generation },
    spec: {
      ...(replicas === null ? {} : { replicas }),
      ...(updateStrategy === undefined ? {} : { updateStrategy }),
    },
    status,
  };
}

const ROLLING = { type: 'RollingUpdate' };
const PARTITION_2 = { type: 'RollingUpdate', rollingUpdate: { partition: 2 } };

describe('StatefulSet (StatefulSetStatusViewer.Status)', () => {
  const cases: Array<[string, StatefulSetLike, RolloutState]> = [
    [
      'OnDelete: kubectl refuses ("on delete returns an error")',
      statefulSet(1, { type: 'OnDelete' }, { observedGeneration: 1, readyReplicas: 1 }),
      refused(ONLY_ROLLING),
    ],
    [
      'no update strategy type: kubectl reads "" and refuses as well',
      statefulSet(1, undefined, { observedGeneration: 1, readyReplicas: 3 }),
      refused(ONLY_ROLLING),
    ],
    [
      'generation above observedGeneration ("unobserved update is not complete")',
      statefulSet(2, ROLLING, {
        observedGeneration: 1,
        readyReplicas: 3,
        currentReplicas: 3,
        updatedReplicas: 0,
      }),
      waiting('Waiting for statefulset spec update to be observed...'),
    ],
    [
      'observedGeneration 0 is never observed, whatever the generation',
      statefulSet(0, ROLLING, { readyReplicas: 3, currentRevision: 'a', updateRevision: 'a' }),
      waiting('Waiting for statefulset spec update to be observed...'),
    ],
    [
      'readyReplicas below spec.replicas ("if all pods are not ready the update is not complete")',
      statefulSet(1, ROLLING, {
        observedGeneration: 2,
        readyReplicas: 2,
        currentReplicas: 3,
        updatedReplicas: 0,
      }),
      waiting('Waiting for 1 pods to be ready...'),
    ],
    [
      'partitioned: updatedReplicas reached replicas - partition ("partition update completes…")',
      statefulSet(1, PARTITION_2, {
        observedGeneration: 2,
        readyReplicas: 3,
        currentReplicas: 2,
        updatedReplicas: 1,
      }),
      complete('partitioned roll out complete: 1 new pods have been updated...'),
    ],
    [
      'partitioned: updatedReplicas below replicas - partition ("partition update is in progress…")',
      statefulSet(1, PARTITION_2, {
        observedGeneration: 2,
        readyReplicas: 3,
        currentReplicas: 3,
        updatedReplicas: 0,
      }),
      waiting(
        'Waiting for partitioned roll out to finish: 0 out of 1 new pods have been updated...',
      ),
    ],
    [
      'partitioned: the revisions are not compared once rollingUpdate is set',
      statefulSet(
        1,
        { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        {
          observedGeneration: 1,
          readyReplicas: 3,
          updatedReplicas: 3,
          currentRevision: 'a',
          updateRevision: 'b',
        },
      ),
      complete('partitioned roll out complete: 3 new pods have been updated...'),
    ],
    [
      'rollingUpdate without a partition: complete, as kubectl says',
      statefulSet(
        1,
        { type: 'RollingUpdate', rollingUpdate: {} },
        { observedGeneration: 1, readyReplicas: 3, updatedReplicas: 1 },
      ),
      complete('partitioned roll out complete: 1 new pods have been updated...'),
    ],
    [
      'no rollingUpdate: currentRevision differs from updateRevision',
      statefulSet(1, ROLLING, {
        observedGeneration: 1,
        readyReplicas: 3,
        currentReplicas: 2,
        updatedReplicas: 1,
        currentRevision: 'foo-1',
        updateRevision: 'foo-2',
      }),
      waiting('waiting for statefulset rolling update to complete 1 pods at revision foo-2...'),
    ],
    [
      'no rollingUpdate: every replica current ("update completes when all replicas are current")',
      statefulSet(1, ROLLING, {
        observedGeneration: 2,
        readyReplicas: 3,
        currentReplicas: 3,
        updatedReplicas: 3,
        currentRevision: 'foo',
        updateRevision: 'foo',
      }),
      complete('statefulset rolling update complete 3 pods at revision foo...'),
    ],
    [
      'no spec.replicas: readiness and partition are not compared with it',
      statefulSet(
        1,
        PARTITION_2,
        { observedGeneration: 1, readyReplicas: 0, updatedReplicas: 0 },
        null,
      ),
      complete('partitioned roll out complete: 0 new pods have been updated...'),
    ],
  ];
  it.each(cases)('%s', (_name, object, expected) => {
    expect(statefulSetRolloutStatus(object)).toEqual(expected);
    expect(rolloutStatus('StatefulSet', object)).toEqual(expected);
  });
});
