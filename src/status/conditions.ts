import type { Condition } from '../directive/types.js';

/** A condition as a transition states it; lastTransitionTime is the helper's business. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/**
 * Sets one condition in a list, the way controller-runtime's `meta.SetStatusCondition` does: a
 * condition of the same type is replaced; `lastTransitionTime` is `now` only when the condition is
 * new or its `status` changed, else the old time is kept (reason, message and observedGeneration
 * may change without a transition). Pure: returns a new list, in a stable order.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: ConditionInput,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((condition) => condition.type === next.type);
  const existing = index === -1 ? undefined : list[index];
  const lastTransitionTime =
    existing !== undefined && existing.status === next.status
      ? existing.lastTransitionTime
      : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const condition: Condition = { ...next, lastTransitionTime };
  if (index === -1) list.push(condition);
  else list[index] = condition;
  return list;
}

/** Removes a condition type (kstatus: an absent Reconciling or Stalled means False). */
export function removeCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition[] {
  return (conditions ?? []).filter((condition) => condition.type !== type);
}
