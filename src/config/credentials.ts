/**
 * The names credentials go by (DESIGN §2): what the logs say as `sender`, and what the rules of a
 * credential key on (CREDENTIAL_NAMESPACES, the field manager of its inline directives, its rate
 * limit). A name is never the credential itself, so it may be logged and written to the cluster.
 */

import { ConfigError } from './environment.js';
import { NAMESPACE_PATTERN, SERVICE_ACCOUNT_PATTERN, TOKEN_NAME_PATTERN } from './variables.js';

/** One entry of WEBHOOK_TOKENS: the bearer token, and the name it goes by. */
export interface NamedToken {
  readonly name: string;
  readonly token: string;
}

/** What the two signature schemes are called; no token may take these names. */
export const HMAC_CREDENTIAL = 'hmac';
export const STANDARD_CREDENTIAL = 'standard';
const SIGNATURE_NAMES: readonly string[] = [HMAC_CREDENTIAL, STANDARD_CREDENTIAL];

/** A token after `name=` must be this long: `abc=` (base64 padding) is a token, not a name. */
const NAMED_TOKEN_MIN_LENGTH = 16;

const TOKEN_NAME = new RegExp(TOKEN_NAME_PATTERN);

/**
 * Names each WEBHOOK_TOKENS entry: `name=token` when the part before the first `=` is a DNS label
 * and at least 16 characters follow it; otherwise the whole entry is the token, named `token<i>`
 * by its place in the list (from 0). Two entries of one name, or a token named like a signature
 * scheme, would share a field manager and a rate limit: that stops the process. The sentence names
 * the name, never a token.
 */
export function nameTokens(entries: readonly string[]): NamedToken[] {
  const named = entries.map((entry, index): NamedToken => {
    const at = entry.indexOf('=');
    const name = entry.slice(0, at);
    const token = entry.slice(at + 1);
    return at > 0 && TOKEN_NAME.test(name) && token.length >= NAMED_TOKEN_MIN_LENGTH
      ? { name, token }
      : { name: `token${index}`, token: entry };
  });
  const seen = new Set<string>();
  for (const { name } of named) {
    if (SIGNATURE_NAMES.includes(name)) {
      throw new ConfigError(
        `WEBHOOK_TOKENS names a token "${name}", which is the name of a signature scheme; choose another name.`,
      );
    }
    if (seen.has(name)) {
      throw new ConfigError(
        `WEBHOOK_TOKENS names two tokens "${name}"; give each token a name of its own.`,
      );
    }
    seen.add(name);
  }
  return named;
}

const NAMESPACE = new RegExp(NAMESPACE_PATTERN);
const SERVICE_ACCOUNT = new RegExp(SERVICE_ACCOUNT_PATTERN);

/**
 * CREDENTIAL_NAMESPACES (`issuer=istio-system|bookinfo,ci=apps`): the namespaces each listed
 * credential may touch, by its name. It narrows ALLOWED_NAMESPACES (`allowed`; undefined: every
 * namespace), so a namespace outside it would be a promise the worker breaks: that stops the
 * process, as any malformed entry does, with one sentence naming the variable.
 */
export function parseCredentialNamespaces(
  entries: readonly string[] | undefined,
  allowed: readonly string[] | undefined,
): ReadonlyMap<string, readonly string[]> {
  const scopes = new Map<string, readonly string[]>();
  for (const entry of entries ?? []) {
    const at = entry.indexOf('=');
    const name = entry.slice(0, at).trim();
    const namespaces = entry
      .slice(at + 1)
      .split('|')
      .map((namespace) => namespace.trim());
    if (at <= 0 || !wellFormed(name, namespaces)) {
      throw new ConfigError(
        `CREDENTIAL_NAMESPACES entries must look like name=namespace|namespace (a token's name, hmac, standard or namespace:name of a service account), not "${entry}".`,
      );
    }
    if (scopes.has(name)) {
      throw new ConfigError(`CREDENTIAL_NAMESPACES lists "${name}" twice; give it one entry.`);
    }
    const outside = allowed === undefined ? [] : namespaces.filter((ns) => !allowed.includes(ns));
    if (outside.length > 0) {
      throw new ConfigError(
        `CREDENTIAL_NAMESPACES gives "${name}" the namespace "${outside[0]}", which ALLOWED_NAMESPACES does not allow.`,
      );
    }
    scopes.set(name, Object.freeze([...new Set(namespaces)]));
  }
  return scopes;
}

/** A listed credential's name, and namespace names only (no `*`, nothing empty). */
function wellFormed(name: string, namespaces: readonly string[]): boolean {
  return (
    (TOKEN_NAME.test(name) || SERVICE_ACCOUNT.test(name)) &&
    namespaces.every((namespace) => NAMESPACE.test(namespace))
  );
}

/** The names of the credentials an api takes: its tokens', the signature schemes', its accounts. */
export function credentialNames(auth: {
  readonly tokens: readonly NamedToken[];
  readonly hmacSecret: string | undefined;
  readonly standardSecret: Buffer | undefined;
  readonly allowedServiceAccounts: readonly string[];
}): Set<string> {
  return new Set([
    ...auth.tokens.map((token) => token.name),
    ...(auth.hmacSecret === undefined ? [] : [HMAC_CREDENTIAL]),
    ...(auth.standardSecret === undefined ? [] : [STANDARD_CREDENTIAL]),
    ...auth.allowedServiceAccounts,
  ]);
}
