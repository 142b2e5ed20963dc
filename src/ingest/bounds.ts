import type { Config } from '../config.js';
import { disallowedNamespaces, namespacesOf, outsideAllowedMessage } from '../directive/bounds.js';
import type { Directive, DirectiveSpec } from '../directive/types.js';
import type { CertIssued } from '../events/cert-issued.js';
import { InvalidDirectiveError } from '../events/errors.js';
import { needsPrometheus } from '../gates/types.js';
import type { PlanBounds } from '../planning/dry-run.js';
import type { IngestDeps } from './deps.js';
import { ForbiddenError } from './errors.js';

type Bounds = Pick<
  Config,
  'allowedNamespaces' | 'credentialNamespaces' | 'inlineDirectives' | 'maxSelectors' | 'gates'
>;

/** The namespaces one credential may touch, and the setting that says so (its refusals name it). */
export interface NamespaceScope {
  /** Undefined: every namespace. */
  readonly namespaces: readonly string[] | undefined;
  readonly setting: string;
}

/**
 * What a credential (by its name, `senderOf`) may touch: its entry of CREDENTIAL_NAMESPACES, else
 * ALLOWED_NAMESPACES (DESIGN §2). An entry lies within ALLOWED_NAMESPACES (checked at start-up),
 * so one list decides.
 */
export function scopeOf(config: Bounds, credential: string): NamespaceScope {
  const listed = config.credentialNamespaces.get(credential);
  return listed === undefined
    ? { namespaces: config.allowedNamespaces, setting: 'ALLOWED_NAMESPACES' }
    : { namespaces: listed, setting: `CREDENTIAL_NAMESPACES for ${credential}` };
}

/** More selectors than MAX_SELECTORS is 422, checked before anything is applied or enqueued. */
export function assertSelectorCount(config: Bounds, spec: DirectiveSpec): void {
  const count = spec.podsToBounce.length;
  if (count > config.maxSelectors) {
    throw new InvalidDirectiveError([
      {
        field: 'spec.podsToBounce',
        message: `has ${count} selectors, more than MAX_SELECTORS (${config.maxSelectors})`,
      },
    ]);
  }
  const concurrency = spec.maxConcurrentSelectors;
  if (concurrency === undefined || concurrency <= config.maxSelectors) return;
  throw new InvalidDirectiveError([
    {
      field: 'spec.maxConcurrentSelectors',
      message: `is ${concurrency}, more than MAX_SELECTORS (${config.maxSelectors})`,
    },
  ]);
}

/** Alerts and query gates ask Prometheus: without PROMETHEUS_URL such a directive is invalid (422). */
export function assertGatesUsable(config: Bounds, spec: DirectiveSpec): void {
  if (config.gates.prometheusUrl !== undefined) return;
  const problems = (spec.gates ?? []).flatMap((gate, index) =>
    needsPrometheus(gate)
      ? [{ field: `spec.gates[${index}]`, message: 'needs PROMETHEUS_URL, which is not set' }]
      : [],
  );
  if (problems.length > 0) throw new InvalidDirectiveError(problems);
}

/**
 * A selector (or its rootCertSync objects) or the directive itself outside the credential's
 * namespaces is 403.
 */
export function assertNamespacesAllowed(
  scope: NamespaceScope,
  spec: DirectiveSpec,
  directiveNamespace?: string,
): void {
  // Every namespace allowed: nothing to gather (this runs for every accepted or repeated event).
  if (scope.namespaces === undefined) return;
  const namespaces = namespacesOf(spec);
  if (directiveNamespace !== undefined) namespaces.add(directiveNamespace);
  const outside = disallowedNamespaces(namespaces, scope.namespaces);
  if (outside.length === 0) return;
  throw new ForbiddenError(
    `The directive is not allowed: ${outsideAllowedMessage(outside, scope.setting)}.`,
  );
}

/** The directive routes read and change one directive: its namespace must be allowed too. */
export function assertNamespaceAllowed(scope: NamespaceScope, namespace: string): void {
  const outside = disallowedNamespaces(new Set([namespace]), scope.namespaces);
  if (outside.length === 0) return;
  throw new ForbiddenError(`Not allowed: ${outsideAllowedMessage(outside, scope.setting)}.`);
}

/**
 * The directive a directive route reads or controls (GET, retry, pause, resume, abort), held to
 * the bounds of an event (DESIGN §2, §3): its own namespace before it is read, then every
 * namespace its spec touches, as ingest and dry runs check them. A credential that may not touch
 * all of them gets 403 before any effect, and does not see the status (which names the pods of
 * those namespaces). Pause and abort too: the contract says "touch", whatever the direction.
 */
export async function directiveInScope(
  deps: Pick<IngestDeps, 'config' | 'kube'>,
  params: { namespace: string; name: string },
  credential: string,
): Promise<Directive> {
  const scope = scopeOf(deps.config, credential);
  assertNamespaceAllowed(scope, params.namespace);
  const directive = await deps.kube.getDirective(params);
  assertNamespacesAllowed(scope, directive.spec, directive.metadata.namespace);
  return directive;
}

/**
 * What a credential may ask before any API call: a referenced directive only in a namespace of
 * its scope (every shape names it), the inline form only when INLINE_DIRECTIVES allows it, and an
 * inline directive only within MAX_SELECTORS and the scope.
 */
export function assertEventAllowed(config: Bounds, event: CertIssued, scope: NamespaceScope): void {
  if (event.kind === 'reference') {
    assertNamespaceAllowed(scope, event.ref.namespace);
    return;
  }
  if (event.kind !== 'inline') return;
  if (!config.inlineDirectives) {
    throw new ForbiddenError(
      'Inline directives are disabled (INLINE_DIRECTIVES=false); send a reference to a directive instead.',
    );
  }
  assertSelectorCount(config, event.manifest.spec);
  assertGatesUsable(config, event.manifest.spec);
  assertNamespacesAllowed(scope, event.manifest.spec, event.manifest.metadata.namespace);
}

/** The spec the cluster holds (a reference's, or an applied one's) within the same bounds. */
export function assertSpecAllowed(
  config: Bounds,
  spec: DirectiveSpec,
  directiveNamespace: string,
  scope: NamespaceScope,
): void {
  assertSelectorCount(config, spec);
  assertGatesUsable(config, spec);
  assertNamespacesAllowed(scope, spec, directiveNamespace);
}

/**
 * A sender's bounds as a dry run applies them: the same checks as ingest's, in the same order;
 * `checkInline` is the apply an inline directive would meet (its field-manager conflicts).
 */
export function planBounds(
  config: Bounds,
  sender: string,
  checkInline: PlanBounds['checkInline'],
): PlanBounds {
  const scope = scopeOf(config, sender);
  return {
    checkEvent: (event) => assertEventAllowed(config, event, scope),
    checkInline,
    checkSpec: (spec, directiveNamespace) =>
      assertSpecAllowed(config, spec, directiveNamespace, scope),
  };
}
