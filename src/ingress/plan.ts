import { summarizePlan, type PlanSummary } from './plan-summary.js';
import type { CertIssued } from '../events/cert-issued.js';
import type { GateKind } from '../gates/types.js';
import { checkedSpec } from '../events/directive-object.js';
import {
  directiveKey,
  type BounceMode,
  type Directive,
  type DirectiveSpec,
  type PodSelector,
  type RootCertSync,
} from '../directive/types.js';
import type { PodInfo } from '../kube/pods.js';
import {
  batchNames,
  bounceModeOf,
  chosenPod,
  planBounce,
  resolvePodOwners,
} from '../workflow/plan.js';
import { needsBounce } from '../workflow/steps/select.js';
import { assertEventAllowed, assertSpecAllowed, scopeOf, type NamespaceScope } from './bounds.js';
import type { ApiKube, AppDeps } from './deps.js';
import { issuanceFrom } from './issuance.js';
import {
  mapBounded,
  selectorWarnings,
  type GateObjects,
  type PlanWarning,
} from './plan-warnings.js';

/** Selectors planned at once: each costs a LIST and up to two reads of the API server. */
const PLAN_CONCURRENCY = 4;

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

/** A gate of the run (DESIGN §4 Gates) evaluated now: open, or closed and why. */
export interface GatePlan {
  /** The gate as messages name it: `alerts "X|Y"`, `query "…"`, `windows Mon-Fri …`. */
  gate: string;
  kind: GateKind;
  /** `installation`: GATE_ALERTS or GATE_WINDOWS; `directive`: spec.gates. */
  source: 'installation' | 'directive';
  verdict: 'open' | 'closed';
  /** Why it is closed; absent when open. */
  why?: string;
}

export interface EventPlan {
  dryRun: true;
  directive: string;
  /** Inline directives are planned from the given spec, which is not written to the cluster. */
  inline: boolean;
  uid: string | null;
  generation: number | null;
  issuedAt: string | null;
  /** Every gate that holds each batch of the run, evaluated now; empty when there is none. */
  gates: GatePlan[];
  /** The plan in figures and one line: what a plan of hundreds of selectors says at a glance. */
  summary: PlanSummary;
  selectors: SelectorPlan[];
}

/** The installation's gates and the directive's, each judged now (a verdict shared for the interval). */
async function planGates(deps: AppDeps, spec: DirectiveSpec): Promise<GatePlan[]> {
  const installation = deps.config.gates.installation;
  const gates = [...installation, ...(spec.gates ?? [])];
  if (gates.length === 0 || deps.gates === undefined) return [];
  const verdicts = await deps.gates.verdicts(gates);
  return verdicts.map((verdict, index) => ({
    gate: verdict.name,
    kind: verdict.kind,
    source: index < installation.length ? 'installation' : 'directive',
    verdict: verdict.open ? 'open' : 'closed',
    ...(verdict.why === undefined ? {} : { why: verdict.why }),
  }));
}

export interface IgnoredPlan {
  dryRun: true;
  ignored: true;
  reason: string;
}

async function rootCertGate(
  kube: ApiKube,
  sync: RootCertSync,
): Promise<{ gate: RootCertGate; found: GateObjects }> {
  const [secret, configMap] = await Promise.all([
    kube.readSecretKey(sync.secretRef, sync.secretKey),
    kube.readConfigMapKey(sync.configMapRef, sync.configMapKey),
  ]);
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

async function planSelector(
  deps: Pick<AppDeps, 'kube' | 'config'>,
  selector: PodSelector,
  selectorIndex: number,
  issuedAt: Date | undefined,
): Promise<SelectorPlan> {
  const { kube } = deps;
  const [pods, gate] = await Promise.all([
    kube.listPods(selector.namespace, selector.labels),
    selector.rootCertSync ? rootCertGate(kube, selector.rootCertSync) : undefined,
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
 * The batches the worker would make of the pods chosen now: the worker's own plan, with the
 * owners it would resolve (rollout mode reads each chosen pod's ReplicaSet, as the worker does).
 */
async function batchPlan(
  deps: Pick<AppDeps, 'kube' | 'config'>,
  selector: PodSelector,
  pods: readonly PodInfo[],
): Promise<BatchPlan> {
  const chosen = pods.map(chosenPod);
  const owners =
    bounceModeOf(deps.config, selector) === 'rollout'
      ? await resolvePodOwners(
          (namespace, controller) => deps.kube.rolloutOwnerOf(namespace, controller),
          selector.namespace,
          chosen,
        )
      : undefined;
  const plan = planBounce(deps.config, selector, chosen, owners);
  return {
    bounceMode: plan.bounceMode,
    maxUnavailable: plan.maxUnavailable,
    batches: batchNames(plan),
  };
}

/** The spec to plan from, checked like ingest checks it, and who it belongs to in the cluster. */
async function planTarget(
  deps: AppDeps,
  event: Exclude<CertIssued, { kind: 'ignored' }>,
  scope: NamespaceScope,
): Promise<{
  key: string;
  uid: string | null;
  generation: number | null;
  spec: DirectiveSpec;
  directive?: Directive;
}> {
  if (event.kind === 'inline') {
    const { metadata, spec } = event.manifest;
    return { key: directiveKey(metadata), uid: null, generation: null, spec };
  }
  const directive = await deps.kube.getDirective(event.ref);
  const spec = checkedSpec(directive.spec);
  assertSpecAllowed(deps.config, spec, directive.metadata.namespace, scope);
  const { uid, generation } = directive.metadata;
  return {
    key: directiveKey(directive.metadata),
    uid,
    generation,
    spec,
    directive,
  };
}

/**
 * `?dryRun=true`: what the event would do now — per selector, the pods that would be bounced,
 * the gates that would be waited on and the warnings an operator must see. Read-only: no job, no
 * status write, no apply (an inline directive is planned from the spec it carries). Bound by the
 * rules of a run from `sender` (its namespaces, INLINE_DIRECTIVES, MAX_SELECTORS), so a plan says
 * nothing (not even whether a Secret exists) of a namespace the credential may not touch; planned
 * a few selectors at a time. Selectors after the first are planned against the pods of this
 * moment; by the time they would run, their pods may have changed.
 */
export async function planEvent(
  deps: AppDeps,
  event: CertIssued,
  sender: string,
): Promise<EventPlan | IgnoredPlan> {
  if (event.kind === 'ignored') return { dryRun: true, ignored: true, reason: event.reason };
  const scope = scopeOf(deps.config, sender);
  assertEventAllowed(deps.config, event, scope);
  const target = await planTarget(deps, event, scope);
  // The issuance a run would serve: the directive's issued-at annotation where the event has none.
  const issuedAt =
    target.directive === undefined
      ? event.issuedAt
      : issuanceFrom(event, target.directive).issuedAt;
  const [gates, selectors] = await Promise.all([
    planGates(deps, target.spec),
    mapBounded(target.spec.podsToBounce, PLAN_CONCURRENCY, (selector, index) =>
      planSelector(deps, selector, index, issuedAt),
    ),
  ]);
  return {
    dryRun: true,
    directive: target.key,
    inline: event.kind === 'inline',
    uid: target.uid,
    generation: target.generation,
    issuedAt: issuedAt?.toISOString() ?? null,
    gates,
    summary: summarizePlan(target.spec, selectors, deps.config.defaultMaxConcurrentSelectors),
    selectors,
  };
}
