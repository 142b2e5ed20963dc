import type { PodSelector } from '../directive/types.js';
import type { PodInfo } from '../kube/pods.js';

/** What a dry run found that an operator must see before running it (DESIGN §2). */
export interface PlanWarning {
  code: 'no-pods' | 'wait-for-replicas-unreachable' | 'secret-missing' | 'configmap-missing';
  message: string;
}

/** How the rootCertSync gate's objects were found: `undefined` when the gate is not set. */
export interface GateObjects {
  secretFound: boolean;
  configMapFound: boolean;
}

/**
 * The warnings of one selector: it matches no pod; its `waitForReplicas` is more than the pods its
 * controllers keep (the controlled pods matching now, not terminating), so the wait could only
 * time out; a rootCertSync Secret or ConfigMap (or its key) that does not exist.
 */
export function selectorWarnings(
  selector: PodSelector,
  pods: PodInfo[],
  gate: GateObjects | undefined,
): PlanWarning[] {
  const warnings: PlanWarning[] = [];
  if (pods.length === 0) {
    warnings.push({ code: 'no-pods', message: 'the selector matches no pod' });
  }
  const kept = pods.filter((pod) => pod.controlled === true && !pod.terminating).length;
  if (selector.waitForReplicas > kept) {
    warnings.push({
      code: 'wait-for-replicas-unreachable',
      message: `waitForReplicas is ${selector.waitForReplicas} but the selector's controllers keep ${kept} pod(s): the wait would time out`,
    });
  }
  const sync = selector.rootCertSync;
  if (sync !== undefined && gate !== undefined) {
    if (!gate.secretFound) {
      warnings.push({
        code: 'secret-missing',
        message: `rootCertSync Secret ${sync.secretRef.namespace}/${sync.secretRef.name} (key ${sync.secretKey}) does not exist`,
      });
    }
    if (!gate.configMapFound) {
      warnings.push({
        code: 'configmap-missing',
        message: `rootCertSync ConfigMap ${sync.configMapRef.namespace}/${sync.configMapRef.name} (key ${sync.configMapKey}) does not exist`,
      });
    }
  }
  return warnings;
}

/**
 * Maps `items` with at most `limit` calls of `work` in flight, keeping the order: a dry run of
 * many selectors must not send all their API reads at once. Once `signal` is aborted no new call
 * starts (the map rejects with its reason).
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
