import type { Config } from '../config.js';
import type { BounceMode, PodSelector, RootCertSync } from '../directive/types.js';
import type { PodInfo } from '../kube/pods.js';
import { planSelectorBounce } from '../workflow/modes/index.js';
import { batchNames, chosenPod, resolvePodOwners } from '../workflow/plan.js';
import { needsBounce } from '../workflow/steps/select.js';
import type { PlanReads } from './plan-reads.js';
import { selectorWarnings, type GateObjects, type PlanWarning } from './warnings.js';

/** What planning one selector needs: the dry run's reads, and the installation's defaults. */
export interface SelectorPlanDeps {
  reads: PlanReads;
  config: Pick<Config, 'bounceMode' | 'defaultMaxUnavailable'>;
}

export interface PlannedPod {
  name: string;
  uid: string;
  /** creationTimestamp, RFC 3339. */
  created: string;
}

export interface RootCertGate extends RootCertSync {
  /** True when the ConfigMap key already equals the decoded Secret key (byte-exact). */
  inSync: boolean;
  /** Why it is not in sync yet; absent when it is. */
  reason?: string;
}

/** How a selector would go: its mode, how many may be down at once, and in which batches. */
export interface BatchPlan {
  bounceMode: BounceMode;
  /** `maxUnavailable` resolved against the pods chosen now (at least 1). */
  maxUnavailable: number;
  /**
   * Pod names per batch, in the order they would go: the worker's own plan (`planBounce`). In
   * rollout mode the owners' pods come first, `maxUnavailable` owners to a batch; then the pods
   * without an owner to restart, evicted in batches of their own.
   */
  batches: string[][];
}

export interface SelectorPlan extends BatchPlan {
  selectorIndex: number;
  namespace: string;
  labels: Record<string, string>;
  /** The pods that would be bounced if the selector ran now. */
  pods: PlannedPod[];
  /** Matching pods left alone: already terminating, or created at or after issuedAt. */
  skipped: Array<PlannedPod & { reason: 'terminating' | 'created at or after issuedAt' }>;
  gates: { rootCertSync: RootCertGate | null; waitForReplicas: number };
  /** What an operator must see before running it; empty when nothing is amiss. */
  warnings: PlanWarning[];
}

/** Whether the rootCertSync ConfigMap key already holds the Secret's bytes, and what was found. */
async function rootCertGate(
  reads: PlanReads,
  sync: RootCertSync,
): Promise<{ gate: RootCertGate; found: GateObjects }> {
  const { secret, configMap } = await reads.gateKeys(sync);
  const found = { secretFound: secret !== undefined, configMapFound: configMap !== undefined };
  // The Secret's bytes are compared here and go no further: the plan says only whether they match.
  if (secret === undefined) {
    return { gate: { ...sync, inSync: false, reason: 'secret key missing' }, found };
  }
  if (configMap === undefined) {
    return { gate: { ...sync, inSync: false, reason: 'configmap key missing' }, found };
  }
  const inSync = Buffer.from(configMap).equals(secret);
  return { gate: inSync ? { ...sync, inSync } : { ...sync, inSync, reason: 'differs' }, found };
}

/**
 * One selector as it would go now: the pods it would bounce and those it leaves alone, its gates,
 * its warnings, and the batches of the worker's own plan.
 */
export async function planSelector(
  deps: SelectorPlanDeps,
  selector: PodSelector,
  selectorIndex: number,
  issuedAt: Date | undefined,
): Promise<SelectorPlan> {
  const { reads } = deps;
  const [pods, gate] = await Promise.all([
    reads.pods(selector.namespace, selector.labels),
    selector.rootCertSync ? rootCertGate(reads, selector.rootCertSync) : undefined,
  ]);
  const plan: Omit<SelectorPlan, keyof BatchPlan> = {
    selectorIndex,
    namespace: selector.namespace,
    labels: selector.labels,
    pods: [],
    skipped: [],
    gates: { rootCertSync: gate?.gate ?? null, waitForReplicas: selector.waitForReplicas },
    warnings: selectorWarnings(selector, pods, gate?.found),
  };
  for (const pod of pods) {
    const view = { name: pod.name, uid: pod.uid, created: pod.createdAt.toISOString() };
    if (needsBounce(pod, issuedAt)) plan.pods.push(view);
    else
      plan.skipped.push({
        ...view,
        reason: pod.terminating ? 'terminating' : 'created at or after issuedAt',
      });
  }
  const chosen = pods.filter((pod) => needsBounce(pod, issuedAt));
  return { ...plan, ...(await batchPlan(deps, selector, chosen)) };
}

/**
 * The batches the worker would make of the pods chosen now: the worker's own plan
 * (`planSelectorBounce`), with the owners it would resolve when the mode needs them (rollout
 * reads each chosen pod's ReplicaSet, as the worker does).
 */
async function batchPlan(
  deps: SelectorPlanDeps,
  selector: PodSelector,
  pods: readonly PodInfo[],
): Promise<BatchPlan> {
  const chosen = pods.map(chosenPod);
  const plan = await planSelectorBounce(deps.config, selector, chosen, () =>
    resolvePodOwners(
      (namespace, controller) => deps.reads.kube.rolloutOwnerOf(namespace, controller),
      selector.namespace,
      chosen,
    ),
  );
  return {
    bounceMode: plan.bounceMode,
    maxUnavailable: plan.maxUnavailable,
    batches: batchNames(plan),
  };
}
