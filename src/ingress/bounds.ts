import type { Config } from '../config.js';
import { disallowedNamespaces, namespacesOf, outsideAllowedMessage } from '../directive/bounds.js';
import type { DirectiveSpec } from '../directive/types.js';
import type { CertIssued } from '../events/cert-issued.js';
import { InvalidDirectiveError } from '../events/errors.js';
import { needsPrometheus } from '../gates/types.js';
import { HttpProblem } from './http-errors.js';

type Bounds = Pick<Config, 'allowedNamespaces' | 'inlineDirectives' | 'maxSelectors' | 'gates'>;

/** More selectors than MAX_SELECTORS is 422, checked before anything is applied or enqueued. */
export function assertSelectorCount(config: Bounds, spec: DirectiveSpec): void {
  const count = spec.podsToBounce.length;
  if (count <= config.maxSelectors) return;
  throw new InvalidDirectiveError([
    {
      field: 'spec.podsToBounce',
      message: `has ${count} selectors, more than MAX_SELECTORS (${config.maxSelectors})`,
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

/** A selector (or its rootCertSync objects) or the directive itself outside ALLOWED_NAMESPACES is 403. */
export function assertNamespacesAllowed(
  config: Bounds,
  spec: DirectiveSpec,
  directiveNamespace?: string,
): void {
  // Every namespace allowed: nothing to gather (this runs for every accepted or repeated event).
  if (config.allowedNamespaces === undefined) return;
  const namespaces = namespacesOf(spec);
  if (directiveNamespace !== undefined) namespaces.add(directiveNamespace);
  const outside = disallowedNamespaces(namespaces, config.allowedNamespaces);
  if (outside.length === 0) return;
  throw new HttpProblem(
    403,
    'forbidden',
    `The directive is not allowed: ${outsideAllowedMessage(outside)}.`,
  );
}

/** The directive routes read and change one directive: its namespace must be allowed too. */
export function assertNamespaceAllowed(config: Bounds, namespace: string): void {
  const outside = disallowedNamespaces(new Set([namespace]), config.allowedNamespaces);
  if (outside.length === 0) return;
  throw new HttpProblem(403, 'forbidden', `Not allowed: ${outsideAllowedMessage(outside)}.`);
}

/**
 * What a credential may ask before any API call: a referenced directive only in a namespace
 * ALLOWED_NAMESPACES allows (every shape names it), the inline form only when INLINE_DIRECTIVES
 * allows it, and an inline directive only within MAX_SELECTORS and ALLOWED_NAMESPACES.
 */
export function assertEventAllowed(config: Bounds, event: CertIssued): void {
  if (event.kind === 'reference') {
    assertNamespaceAllowed(config, event.ref.namespace);
    return;
  }
  if (event.kind !== 'inline') return;
  if (!config.inlineDirectives) {
    throw new HttpProblem(
      403,
      'forbidden',
      'Inline directives are disabled (INLINE_DIRECTIVES=false); send a reference to a directive instead.',
    );
  }
  assertSelectorCount(config, event.manifest.spec);
  assertGatesUsable(config, event.manifest.spec);
  assertNamespacesAllowed(config, event.manifest.spec, event.manifest.metadata.namespace);
}

/** The spec the cluster holds (a reference's, or an applied one's) within the same bounds. */
export function assertSpecAllowed(
  config: Bounds,
  spec: DirectiveSpec,
  directiveNamespace: string,
): void {
  assertSelectorCount(config, spec);
  assertGatesUsable(config, spec);
  assertNamespacesAllowed(config, spec, directiveNamespace);
}
