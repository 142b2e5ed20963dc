import type { StepContext } from '../context.js';
import { planSelectorBounce } from '../modes/index.js';
import { resolvePodOwners, type BouncePlan, type PodOwners } from '../plan.js';

/**
 * Each chosen pod's restartable owner (`resolvePodOwners`: a ReplicaSet read per set), for a mode
 * that plans with owners: resolved once and persisted, so that a re-run plans from the same answer.
 */
async function persistedOwners(context: StepContext): Promise<PodOwners> {
  if (context.progress.podOwners !== undefined) return context.progress.podOwners;
  const result = await resolvePodOwners(
    (namespace, controller) => context.deps.kube.rolloutOwnerOf(namespace, controller),
    context.data.selector.namespace,
    context.progress.chosen ?? [],
  );
  await context.save({ podOwners: result });
  return result;
}

/** The selector's plan (`planSelectorBounce`, the one the dry run shows), from the chosen pods. */
export function planOf(context: StepContext): Promise<BouncePlan> {
  const chosen = context.progress.chosen ?? [];
  const { settings } = context.deps;
  return planSelectorBounce(settings, context.data.selector, chosen, () =>
    persistedOwners(context),
  );
}
