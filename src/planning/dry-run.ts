import type { Config } from '../config.js';
import { checkedSpec } from '../events/directive-object.js';
import type { CertIssued } from '../events/cert-issued.js';
import type { GateJudge } from '../gates/judge.js';
import type { GateKind } from '../gates/types.js';
import {
  directiveKey,
  type Directive,
  type DirectiveManifest,
  type DirectiveSpec,
} from '../directive/types.js';
import { issuanceFrom } from '../events/issuance.js';
import { planWithin, type PlanLimits } from './plan-deadline.js';
import { PlanReads, type PlanKube } from './plan-reads.js';
import { planSelector, type SelectorPlan } from './selector.js';
import { summarizePlan, type PlanSummary } from './summary.js';
import { mapBounded } from './warnings.js';

export type { BatchPlan, PlannedPod, RootCertGate, SelectorPlan } from './selector.js';
export type { PlanLimits } from './plan-deadline.js';

/** What a dry run reads: the API server, the installation's settings, the gates' verdicts. */
export interface PlanDeps {
  kube: PlanKube;
  config: Pick<
    Config,
    'bounceMode' | 'defaultMaxUnavailable' | 'defaultMaxConcurrentSelectors' | 'gates'
  >;
  gates?: Pick<GateJudge, 'verdicts'> | undefined;
}

/**
 * The rules of a run from the sender (its namespaces, INLINE_DIRECTIVES, MAX_SELECTORS), which
 * the HTTP layer knows: a plan must say nothing of what the sender may not touch.
 */
export interface PlanBounds {
  /** Throws when the event itself is out of bounds (before anything is read). */
  checkEvent(event: CertIssued): void;
  /** Throws when applying the inline directive would be refused (another field manager's: 409). */
  checkInline(manifest: DirectiveManifest): Promise<void>;
  /** Throws when the spec the cluster holds is out of bounds. */
  checkSpec(spec: DirectiveSpec, directiveNamespace: string): void;
}

/**
 * Selectors planned at once: each costs at most a LIST of its namespace and two reads of the API
 * server, made once per dry run (`PlanReads`).
 */
const PLAN_CONCURRENCY = 4;

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
async function planGates(deps: PlanDeps, spec: DirectiveSpec): Promise<GatePlan[]> {
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

/** The spec to plan from, checked like ingest checks it, and who it belongs to in the cluster. */
async function planTarget(
  deps: PlanDeps,
  event: Exclude<CertIssued, { kind: 'ignored' }>,
  bounds: PlanBounds,
): Promise<{
  key: string;
  uid: string | null;
  generation: number | null;
  spec: DirectiveSpec;
  directive?: Directive;
}> {
  if (event.kind === 'inline') {
    await bounds.checkInline(event.manifest);
    const { metadata, spec } = event.manifest;
    return { key: directiveKey(metadata), uid: null, generation: null, spec };
  }
  const directive = await deps.kube.getDirective(event.ref);
  const spec = checkedSpec(directive.spec);
  bounds.checkSpec(spec, directive.metadata.namespace);
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
 * status write, no apply but a dry-run one (an inline directive is planned from the spec it
 * carries, once the API server has said the apply would not conflict). Bound by the
 * rules of a run from the sender (`bounds`: its namespaces, INLINE_DIRECTIVES, MAX_SELECTORS), so a plan says
 * nothing (not even whether a Secret exists) of a namespace the credential may not touch; planned
 * a few selectors at a time, one LIST per namespace. Selectors after the first are planned against
 * the pods of this moment; by the time they would run, their pods may have changed. Bounded by
 * `limits`: planning stops when the request is closed, and past the deadline the answer is a 503.
 */
export async function planEvent(
  deps: PlanDeps,
  event: CertIssued,
  bounds: PlanBounds,
  limits: PlanLimits,
): Promise<EventPlan | IgnoredPlan> {
  if (event.kind === 'ignored') return { dryRun: true, ignored: true, reason: event.reason };
  bounds.checkEvent(event);
  const target = await planTarget(deps, event, bounds);
  // The issuance a run would serve: the directive's issued-at annotation where the event has none.
  const issuedAt =
    target.directive === undefined
      ? event.issuedAt
      : issuanceFrom(event, target.directive).issuedAt;
  const selectorDeps = { reads: new PlanReads(deps.kube), config: deps.config };
  const what = `${target.spec.podsToBounce.length} selector(s) of ${target.key}`;
  const [gates, selectors] = await planWithin(limits, what, (signal) =>
    Promise.all([
      planGates(deps, target.spec),
      mapBounded(
        target.spec.podsToBounce,
        PLAN_CONCURRENCY,
        (selector, index) => planSelector(selectorDeps, selector, index, issuedAt),
        signal,
      ),
    ]),
  );
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
