/**
 * The authentication part of the configuration: the credentials of the events endpoint and of the
 * dashboard, and the serve role's refusal to start without an explicit decision about them.
 */

import { credentialNames, nameTokens, type NamedToken } from './credentials.js';
import { ConfigError, readChoice, readList, readText, type Env } from './environment.js';
import { SERVICE_ACCOUNT_PATTERN } from './variables.js';
import { FIELD_MANAGER_MAX_LENGTH, inlineFieldManager } from '../kube/field-manager.js';

export interface AuthConfig {
  /** `WEBHOOK_AUTH=none` given explicitly: the events endpoint accepts anyone. */
  readonly none: boolean;
  /** WEBHOOK_TOKENS, each with the name it goes by (`name=token`, else `token<i>`). */
  readonly tokens: readonly NamedToken[];
  readonly hmacSecret: string | undefined;
  /** Standard Webhooks signing key, the bytes after `whsec_` decoded from base64. */
  readonly standardSecret: Buffer | undefined;
  readonly tokenReviewAudience: string | undefined;
  readonly allowedServiceAccounts: readonly string[];
}

export type DashboardConfig = { readonly user: string; readonly password: string } | undefined;

function standardSecret(env: Env): Buffer | undefined {
  const raw = readText(env, 'WEBHOOK_STANDARD_SECRET');
  if (raw === undefined) return undefined;
  const encoded = raw.startsWith('whsec_') ? raw.slice('whsec_'.length) : '';
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length < 16) {
    throw new ConfigError(
      'WEBHOOK_STANDARD_SECRET must be whsec_ followed by a base64 key of at least 16 bytes.',
    );
  }
  return key;
}

export function authConfig(env: Env): AuthConfig {
  const auth: AuthConfig = {
    none: readChoice(env, 'WEBHOOK_AUTH') === 'none',
    tokens: nameTokens(readList(env, 'WEBHOOK_TOKENS') ?? []),
    hmacSecret: readText(env, 'WEBHOOK_HMAC_SECRET'),
    standardSecret: standardSecret(env),
    tokenReviewAudience: readText(env, 'WEBHOOK_TOKENREVIEW_AUDIENCE'),
    allowedServiceAccounts: readList(env, 'WEBHOOK_ALLOWED_SERVICEACCOUNTS') ?? [],
  };
  const serviceAccount = new RegExp(SERVICE_ACCOUNT_PATTERN);
  for (const account of auth.allowedServiceAccounts) {
    if (!serviceAccount.test(account)) {
      throw new ConfigError(
        `WEBHOOK_ALLOWED_SERVICEACCOUNTS entries must look like namespace:name, not "${account}".`,
      );
    }
    // The API server refuses a longer field manager, which would make every inline directive of
    // this account fail at the apply.
    if (inlineFieldManager(account).length > FIELD_MANAGER_MAX_LENGTH) {
      throw new ConfigError(
        `WEBHOOK_ALLOWED_SERVICEACCOUNTS entry "${account}" is too long to name a field manager (pod-bouncer-<namespace>.<name>, at most ${FIELD_MANAGER_MAX_LENGTH} characters).`,
      );
    }
  }
  if (auth.tokenReviewAudience !== undefined && auth.allowedServiceAccounts.length === 0) {
    throw new ConfigError(
      'WEBHOOK_ALLOWED_SERVICEACCOUNTS must list the service accounts allowed when WEBHOOK_TOKENREVIEW_AUDIENCE is set.',
    );
  }
  return auth;
}

/** True when at least one way to authenticate callers is configured, or `none` was chosen. */
export function hasAuthMode(auth: AuthConfig): boolean {
  return (
    auth.none ||
    auth.tokens.length > 0 ||
    auth.hmacSecret !== undefined ||
    auth.standardSecret !== undefined ||
    auth.tokenReviewAudience !== undefined
  );
}

export function dashboard(env: Env): DashboardConfig {
  const user = readText(env, 'DASHBOARD_USER');
  const password = readText(env, 'DASHBOARD_PASSWORD');
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError('DASHBOARD_USER and DASHBOARD_PASSWORD must be set together.');
  }
  return user !== undefined && password !== undefined ? { user, password } : undefined;
}

/**
 * The serve role refuses to start without an explicit auth decision: secure by default. Nor does
 * it start when CREDENTIAL_NAMESPACES names a credential it does not take: a misspelt name would
 * leave the credential it meant with every namespace of ALLOWED_NAMESPACES.
 */
export function assertAuthConfigured(config: {
  readonly auth: AuthConfig;
  readonly credentialNamespaces: ReadonlyMap<string, readonly string[]>;
}): void {
  if (!hasAuthMode(config.auth)) {
    throw new ConfigError(
      'WEBHOOK_AUTH must be set to "none", or WEBHOOK_TOKENS, WEBHOOK_HMAC_SECRET, WEBHOOK_STANDARD_SECRET or WEBHOOK_TOKENREVIEW_AUDIENCE configured, before the events endpoint can start.',
    );
  }
  const known = credentialNames(config.auth);
  for (const name of config.credentialNamespaces.keys()) {
    if (!known.has(name)) {
      throw new ConfigError(
        `CREDENTIAL_NAMESPACES names "${name}", which is not a configured credential (a WEBHOOK_TOKENS name, hmac, standard, or a WEBHOOK_ALLOWED_SERVICEACCOUNTS entry).`,
      );
    }
  }
}
