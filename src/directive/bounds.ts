import type { DirectiveSpec } from './types.js';

/** The most MAX_SELECTORS may be set to: no directive pod-bouncer runs has more selectors. */
export const MAX_SELECTORS_CEILING = 10_000;

/**
 * Every namespace a spec makes pod-bouncer touch: each selector's, and those of the Secret and
 * ConfigMap a rootCertSync gate reads.
 */
export function namespacesOf(spec: DirectiveSpec): Set<string> {
  const namespaces = new Set<string>();
  for (const selector of spec.podsToBounce) {
    namespaces.add(selector.namespace);
    if (selector.rootCertSync) {
      namespaces.add(selector.rootCertSync.secretRef.namespace);
      namespaces.add(selector.rootCertSync.configMapRef.namespace);
    }
  }
  return namespaces;
}

/** The namespaces outside `allowed` (undefined allows every namespace), in a stable order. */
export function disallowedNamespaces(
  namespaces: Iterable<string>,
  allowed: readonly string[] | undefined,
): string[] {
  if (allowed === undefined) return [];
  return [...new Set(namespaces)].filter((namespace) => !allowed.includes(namespace)).sort();
}

/**
 * The sentence a refusal gives: which namespaces, and the setting that decides
 * (`ALLOWED_NAMESPACES`, or a credential's entry of CREDENTIAL_NAMESPACES).
 */
export function outsideAllowedMessage(
  namespaces: string[],
  setting = 'ALLOWED_NAMESPACES',
): string {
  const list = namespaces.map((namespace) => `"${namespace}"`).join(', ');
  return `namespace ${list} ${namespaces.length === 1 ? 'is' : 'are'} not in ${setting}`;
}
