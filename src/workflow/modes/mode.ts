import type { BounceMode } from '../../directive/types.js';
import type { ChosenPod } from '../../queue/selector-job.js';
import type { StepContext, StepOutcome } from '../context.js';
import { planBatches } from '../batches.js';
import type { BouncePlan, PodOwners } from '../plan.js';

/** What became of one pod's bounce: sent (or found already done), or refused for now. */
export type PodBounce = 'done' | 'blocked';

/** One RBAC rule a mode needs, as the chart's ClusterRoles write it. */
export interface RbacRule {
  /** "" for the core group. */
  apiGroup: string;
  resources: readonly string[];
  verbs: readonly string[];
}

/** What a plan is made from: the chosen pods, `maxUnavailable` resolved, and their owners. */
export interface PlanInput {
  chosen: readonly ChosenPod[];
  /** `maxUnavailable` resolved against the chosen pods (at least 1). */
  maxUnavailable: number;
  /** Each chosen pod's restartable owner; given only to a mode that `needsOwners`. */
  owners?: PodOwners;
}

/**
 * Everything a bounce mode is (DESIGN §4 step 3), in one record, like a strategy of Reloader's
 * `RollingUpgradeFuncs`: how it plans a selector's chosen pods, what it does before the pods'
 * batches, how it bounces one pod, and what it needs of the API server. The worker's bounce step
 * and the dry run both go through it, so a mode is this record plus its name in `BOUNCE_MODES`.
 *
 * Every `bouncePod` guards the pod by its uid, so that a replacement reusing the name is never
 * touched, and treats "already gone" as done. `blocked` means "not now" (a PodDisruptionBudget
 * refused): the step waits for pod changes and tries again later.
 */
export interface BounceStrategy {
  readonly mode: BounceMode;
  /**
   * Whether `plan` needs each chosen pod's restartable owner (a ReplicaSet read per controller):
   * the worker resolves them once and persists them, the dry run resolves them afresh.
   */
  readonly needsOwners: boolean;
  /** The plan of the chosen pods: pure and deterministic, so a re-run and the dry run agree. */
  plan(input: PlanInput): Pick<BouncePlan, 'owners' | 'batches'>;
  /**
   * Runs before the plan's batches (rollout: restarts the owners, then checks their rollouts are
   * complete): `done` lets the batches go, anything else is the step's outcome for now.
   */
  beforeBatches?(context: StepContext, plan: BouncePlan): Promise<StepOutcome | 'done'>;
  bouncePod(context: StepContext, pod: ChosenPod): Promise<PodBounce>;
  /**
   * The RBAC rules the mode needs: of the worker that bounces, and of the api whose dry run plans
   * (checked against the chart's ClusterRoles by test/unit/bounce-modes.test.ts).
   */
  readonly rbac: { worker: readonly RbacRule[]; api: readonly RbacRule[] };
}

/**
 * What a batch's owners' wait reads (owners-down.ts): the scale of each chosen pod's owner, a
 * ReplicaSet's from a watch (a GET until it has listed), a StatefulSet's or DaemonSet's by a GET.
 */
export const READ_OWNER_SCALE: readonly RbacRule[] = [
  { apiGroup: 'apps', resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
  { apiGroup: 'apps', resources: ['statefulsets', 'daemonsets'], verbs: ['get'] },
];

/** The plan of a mode that bounces each chosen pod itself: no owners, `maxUnavailable` a batch. */
export const podByPod: Pick<BounceStrategy, 'needsOwners' | 'plan'> = {
  needsOwners: false,
  plan: ({ chosen, maxUnavailable }) => ({
    owners: [],
    batches: planBatches(chosen, maxUnavailable),
  }),
};
