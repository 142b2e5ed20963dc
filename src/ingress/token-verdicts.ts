import { hash } from 'node:crypto';
import { TransientError } from '../errors.js';
import type { ReviewLane, TokenReviewAnswer } from '../kube/token-review.js';
import type { SignatureCheck } from './issuer-keys.js';
import { readClaims } from './token-claims.js';

/** What a reviewed token is: a service account (`namespace:name`), or nothing we accept. */
export type TokenVerdict = { account: string } | { invalid: true };

export interface TokenVerdictOptions {
  /** How long a valid token's verdict is kept (ms). */
  ttlMs?: number;
  /** How long a refused token's verdict is kept (ms): a replayed junk token costs nothing. */
  negativeTtlMs?: number;
  /** Most verdicts kept; the oldest is forgotten first. */
  maxEntries?: number;
  /**
   * The service accounts (`namespace:name`) whose tokens are reviewed on the `allowed` lane; the
   * others' go on the `other` one. Absent: every account's go on `allowed`.
   */
  allowedAccounts?: readonly string[];
  /**
   * Checks a token's signature against the service-account issuer's keys before it may spend a
   * review; a `forged` one is refused without one. Absent, or `unchecked`: the claims alone decide.
   */
  signatures?: (token: string) => Promise<SignatureCheck>;
}

type Review = (
  token: string,
  audience: string,
  lane: ReviewLane,
) => Promise<TokenReviewAnswer | undefined>;

const REFUSED: TokenVerdict = { invalid: true };

const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** The verdict on one review: authenticated, for our audience, and a service account. */
export function verdictOf(answer: TokenReviewAnswer, audience: string): TokenVerdict {
  const match = SERVICE_ACCOUNT.exec(answer.username ?? '');
  // An authenticator that ignores spec.audiences may vouch for a token minted for another API:
  // the audience is checked here again, on what the API server says the token is for.
  if (!answer.authenticated || !answer.audiences.includes(audience) || !match) {
    return { invalid: true };
  }
  return { account: `${match[1]}:${match[2]}` };
}

/**
 * TokenReview verdicts kept briefly by the token's SHA-256 (the token itself is never kept), so
 * that N requests with one token cost one review: concurrent requests share the review in flight,
 * later ones read the verdict. Refusals are kept too. The map is bounded; the oldest entry goes.
 * A review the budget does not allow is a 503 with Retry-After: the caller may try again, and a
 * flood of distinct tokens costs at most the budget.
 *
 * What a stranger's junk may spend is decided before any review: a token that is not a
 * well-formed, unexpired service-account JWT minted for our audience (`readClaims`), or whose
 * signature the issuer's keys do not verify (`signatures`), is refused without one (and without a
 * cache entry: the check costs less than a review); one naming a service account off the
 * allow-list is reviewed on a small lane of its own; only one naming an allowed account, for our
 * audience, draws on the budget real callers' new tokens need. Without the issuer's keys anybody
 * can write a token naming an allowed account, and spend that budget. A known-good token is admitted from the cache whatever the flood, and once its
 * verdict has expired it is reviewed again on the `renewal` lane, which only tokens that were
 * valid can spend.
 */
export class TokenVerdicts {
  private readonly verdicts = new Map<string, { verdict: TokenVerdict; until: number }>();
  private readonly inFlight = new Map<string, Promise<TokenVerdict>>();
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly maxEntries: number;
  private readonly allowed: ReadonlySet<string> | undefined;
  private readonly signatures: TokenVerdictOptions['signatures'];

  constructor(
    private readonly review: Review,
    private readonly audience: string,
    options: TokenVerdictOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 30_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.allowed = options.allowedAccounts ? new Set(options.allowedAccounts) : undefined;
    this.signatures = options.signatures;
  }

  async verdict(token: string): Promise<TokenVerdict> {
    const claims = readClaims(token);
    if (claims === undefined || !claims.audiences.includes(this.audience)) return REFUSED;
    const key = hash('sha256', token, 'base64');
    const cached = this.verdicts.get(key);
    // A verdict still kept, or a token once valid, needs no check; any other is checked before
    // it may spend a review (a refusal kept while the keys were unknown included).
    const known =
      cached !== undefined && (cached.until > Date.now() || 'account' in cached.verdict);
    if (!known && this.signatures !== undefined) {
      if ((await this.signatures(token)) === 'forged') return REFUSED;
    }
    return this.reviewed(key, token, claims.account);
  }

  /** The cached verdict, the review in flight, or a new review on the token's lane. */
  private reviewed(key: string, token: string, account: string): Promise<TokenVerdict> {
    const cached = this.verdicts.get(key);
    if (cached !== undefined && cached.until > Date.now()) return Promise.resolve(cached.verdict);
    // An expired valid verdict is kept until its renewal answers: the token stays known-good, and
    // its renewal is taken from a lane that forged tokens cannot spend.
    const knownGood = cached !== undefined && 'account' in cached.verdict;
    if (!knownGood) this.verdicts.delete(key);
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending;
    const lane = knownGood ? 'renewal' : this.laneOf(account);
    const asked = this.ask(key, token, lane).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, asked);
    return asked;
  }

  private laneOf(account: string): ReviewLane {
    return this.allowed === undefined || this.allowed.has(account) ? 'allowed' : 'other';
  }

  private async ask(key: string, token: string, lane: ReviewLane): Promise<TokenVerdict> {
    const answer = await this.review(token, this.audience, lane);
    if (answer === undefined) {
      throw new TransientError('Too many new tokens to review right now; try again shortly.', 1);
    }
    const verdict = verdictOf(answer, this.audience);
    this.verdicts.delete(key);
    if (this.verdicts.size >= this.maxEntries) {
      const oldest = this.verdicts.keys().next().value;
      if (oldest !== undefined) this.verdicts.delete(oldest);
    }
    const ttl = 'account' in verdict ? this.ttlMs : this.negativeTtlMs;
    this.verdicts.set(key, { verdict, until: Date.now() + ttl });
    return verdict;
  }
}
