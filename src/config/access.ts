/** What a credential may do: the namespaces of ALLOWED_NAMESPACES, and the bound on concurrency. */

import { ConfigError, readInteger, readList, type Env } from './environment.js';
import { EVERY_NAMESPACE, NAMESPACE_PATTERN } from './variables.js';

/** ALLOWED_NAMESPACES: undefined (every namespace) when unset or `*`, else the names. */
export function allowedNamespaces(env: Env): readonly string[] | undefined {
  const names = readList(env, 'ALLOWED_NAMESPACES');
  if (names === undefined) return undefined;
  if (names.length === 0) {
    throw new ConfigError('ALLOWED_NAMESPACES must name at least one namespace when it is set.');
  }
  if (names.includes(EVERY_NAMESPACE)) {
    if (names.length > 1) {
      throw new ConfigError(
        'ALLOWED_NAMESPACES must be either * (every namespace) or a list of namespaces, not both.',
      );
    }
    return undefined;
  }
  const pattern = new RegExp(NAMESPACE_PATTERN);
  for (const name of names) {
    if (!pattern.test(name)) {
      throw new ConfigError(
        `ALLOWED_NAMESPACES must be a comma-separated list of namespace names, not "${name}".`,
      );
    }
  }
  return Object.freeze([...new Set(names)]);
}

/** The default must be a value a directive could set itself: at most MAX_SELECTORS. */
export function defaultConcurrency(env: Env): number {
  const value = readInteger(env, 'DEFAULT_MAX_CONCURRENT_SELECTORS');
  const limit = readInteger(env, 'MAX_SELECTORS');
  if (value > limit) {
    throw new ConfigError(
      `DEFAULT_MAX_CONCURRENT_SELECTORS is ${value}, more than MAX_SELECTORS (${limit}); lower it or raise MAX_SELECTORS.`,
    );
  }
  return value;
}
