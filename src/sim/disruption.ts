// The eviction subresource: a DELETE that first asks the pod's PodDisruptionBudget.
import { ApiError, badRequest, internalError } from './api-errors.js';
import { matchesSelector, selectorFromObject } from './label-selector.js';
import { preconditionsOf } from './object-meta.js';
import type { KubeObject, PodObject } from './objects.js';
import { isPlainObject } from './objects.js';
import { isPodReady, isTerminating } from './pod-factory.js';
import type { PodRuntime } from './pods.js';
import type { ApiRequest, Reply } from './requests.js';
import { isDryRun } from './requests.js';
import type { ObjectStore } from './store.js';

interface BudgetSpec {
  selector?: { matchLabels?: Record<string, string> };
  minAvailable?: number | string;
  maxUnavailable?: number | string;
}

export function evictionHandler(store: ObjectStore, pods: PodRuntime): (req: ApiRequest) => Reply {
  return (req) => {
    const name = req.path.name ?? '';
    const body = isPlainObject(req.body) ? req.body : {};
    const meta = isPlainObject(body.metadata) ? body.metadata : {};
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(`name in URL does not match name in Eviction object`);
    }
    pods.delete(req.namespace, name, {
      preconditions: preconditionsOf(body.deleteOptions),
      dryRun: isDryRun(req.query),
      admit: (pod) => checkBudgets(store, pod),
    });
    return {
      status: 201,
      body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 },
    };
  };
}

function checkBudgets(store: ObjectStore, pod: PodObject): void {
  const { namespace } = pod.metadata;
  const budgets = store
    .list('poddisruptionbudgets', namespace)
    .filter((pdb) =>
      matchesSelector(selectorFromObject(specOf(pdb).selector), pod.metadata.labels),
    );
  if (budgets.length > 1) {
    throw internalError(
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
  }
  const budget = budgets[0];
  if (!budget) return;
  const covered = (store.list('pods', namespace) as PodObject[]).filter(
    (p) =>
      !isTerminating(p) &&
      matchesSelector(selectorFromObject(specOf(budget).selector), p.metadata.labels),
  );
  const healthy = covered.filter(isPodReady).length;
  const desired = desiredHealthy(specOf(budget), expectedPods(store, covered));
  // IfHealthyBudget: a Ready pod needs a spare disruption; an unready one only a healthy budget.
  const allowed = isPodReady(pod) ? healthy - 1 >= desired : healthy >= desired;
  if (allowed) return;
  throw new ApiError(
    429,
    'TooManyRequests',
    "Cannot evict pod as it would violate the pod's disruption budget.",
    {
      causes: [
        {
          reason: 'DisruptionBudget',
          message: `The disruption budget ${budget.metadata.name} needs ${desired} healthy pods and has ${healthy} currently`,
        },
      ],
    },
  );
}

function specOf(pdb: KubeObject): BudgetSpec {
  return isPlainObject(pdb.spec) ? pdb.spec : {};
}

/**
 * The pods the budget expects, as the disruption controller counts them: each controller's scale
 * (spec.replicas of the ReplicaSet or StatefulSet that owns covered pods), plus bare pods. Counting
 * only the live pods would let a second eviction through while the first one's replacement is
 * not created yet.
 */
function expectedPods(store: ObjectStore, covered: PodObject[]): number {
  const owners = new Map<string, number>();
  let bare = 0;
  for (const pod of covered) {
    const scale = controllerScale(store, pod);
    if (scale === undefined) bare += 1;
    else owners.set(scale.key, scale.replicas);
  }
  return Math.max(covered.length, bare + [...owners.values()].reduce((sum, n) => sum + n, 0));
}

const SCALED_KINDS: Record<string, string> = {
  ReplicaSet: 'replicasets',
  StatefulSet: 'statefulsets',
};

/** spec.replicas of the ReplicaSet or StatefulSet that controls the pod, if any. */
function controllerScale(
  store: ObjectStore,
  pod: PodObject,
): { key: string; replicas: number } | undefined {
  const ref = pod.metadata.ownerReferences?.find((owner) => owner.controller);
  const kind = ref === undefined ? undefined : SCALED_KINDS[ref.kind];
  if (ref === undefined || kind === undefined) return undefined;
  const owner = store.get(kind, pod.metadata.namespace, ref.name);
  const replicas = isPlainObject(owner?.spec) ? owner.spec.replicas : undefined;
  return typeof replicas === 'number' ? { key: `${kind}/${ref.name}`, replicas } : undefined;
}

function desiredHealthy(spec: BudgetSpec, expected: number): number {
  if (spec.minAvailable !== undefined) return scaled(spec.minAvailable, expected);
  if (spec.maxUnavailable !== undefined) return expected - scaled(spec.maxUnavailable, expected);
  return 0;
}

/** An IntOrString budget value: a count, or a percentage of the expected pods rounded up. */
function scaled(value: number | string, expected: number): number {
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.ceil((Number(percent[1]) / 100) * expected) : Number(value);
}
