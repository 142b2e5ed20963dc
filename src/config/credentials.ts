/**
 * The names credentials go by (DESIGN §2): what the logs say as `sender`, and what the rules of a
 * credential key on (CREDENTIAL_NAMESPACES, the field manager of its inline directives, its rate
 * limit). A name is never the credential itself, so it may be logged and written to the cluster.
 */

import { ConfigError } from './environment.js';

/** One entry of WEBHOOK_TOKENS: the bearer token, and the name it goes by. */
export interface NamedToken {
  readonly name: string;
  readonly token: string;
}

/** What the two signature schemes are called; no token may take these names. */
export const HMAC_CREDENTIAL = 'hmac';
export const STANDARD_CREDENTIAL = 'standard';
const SIGNATURE_NAMES: readonly string[] = [HMAC_CREDENTIAL, STANDARD_CREDENTIAL];

/** The name of a `name=token` entry: a DNS label. */
export const TOKEN_NAME_PATTERN = '^[a-z0-9-]{1,63}$';
/** A service account, `namespace:name`, as WEBHOOK_ALLOWED_SERVICEACCOUNTS lists it. */
export const SERVICE_ACCOUNT_PATTERN = '^[a-z0-9.-]+:[a-z0-9.-]+$';
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
