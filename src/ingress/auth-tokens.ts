/** Bearer tokens: the static ones of WEBHOOK_TOKENS, and service-account tokens via TokenReview. */

import { hash, timingSafeEqual } from 'node:crypto';
import type { AuthConfig } from '../config.js';
import { HttpProblem } from './http-errors.js';
import type { TokenVerdicts } from './token-verdicts.js';

/** One-shot SHA-256 (no Hash object per request). */
const digest = (value: string): Buffer => hash('sha256', value, 'buffer');

/**
 * The name of the WEBHOOK_TOKENS entry a token matches, or undefined. Tokens are compared as
 * digests of one length, and every one is compared, so time tells nothing.
 */
export function staticTokens(config: AuthConfig): (token: string) => string | undefined {
  const tokenDigests = config.tokens.map(({ name, token }) => ({ name, secret: digest(token) }));
  return (token) => {
    const candidate = digest(token);
    let found: string | undefined;
    for (const { name, secret } of tokenDigests) {
      if (timingSafeEqual(candidate, secret) && found === undefined) found = name;
    }
    return found;
  };
}

/**
 * The service account a token belongs to by TokenReview, when it is on the allow-list; undefined
 * when the token is not one (or no review is configured); a 403 when valid but not allowed.
 */
export function reviewedTokens(
  config: AuthConfig,
  verdicts: TokenVerdicts | undefined,
): (token: string) => Promise<string | undefined> {
  return async (token) => {
    if (verdicts === undefined) return undefined;
    const verdict = await verdicts.verdict(token);
    if (!('account' in verdict)) return undefined;
    if (config.allowedServiceAccounts.includes(verdict.account)) return verdict.account;
    throw new HttpProblem(403, 'forbidden', `Service account ${verdict.account} is not allowed.`);
  };
}
