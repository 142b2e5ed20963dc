import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { isRecord } from '../records.js';

/**
 * What the issuer's keys say of a token's signature: made by one of them (`valid`), not
 * (`forged`), or nothing, the keys being unknown (`unchecked`).
 */
export type SignatureCheck = 'valid' | 'forged' | 'unchecked';

export interface IssuerKeysOptions {
  /** Least time between two fetches of the key set (ms): unknown `kid`s cannot multiply them. */
  minFetchIntervalMs?: number;
  /** How long a fetched key set is used before it is fetched again (ms). */
  maxAgeMs?: number;
  /** How long a fetch may take before it counts as failed (ms). */
  fetchTimeoutMs?: number;
}

/** The JWS algorithms a service-account issuer signs with, and the key type each needs. */
const ALGORITHMS: Record<string, { hash: string; kty: string; ecdsa?: true }> = {
  RS256: { hash: 'sha256', kty: 'RSA' },
  RS384: { hash: 'sha384', kty: 'RSA' },
  RS512: { hash: 'sha512', kty: 'RSA' },
  ES256: { hash: 'sha256', kty: 'EC', ecdsa: true },
  ES384: { hash: 'sha384', kty: 'EC', ecdsa: true },
  ES512: { hash: 'sha512', kty: 'EC', ecdsa: true },
};

/** Where a failed fetch is told (the api's logger). */
export interface Warnings {
  warn(fields: object, message: string): void;
}

interface IssuerKey {
  kid: string | undefined;
  kty: string;
  key: KeyObject;
}

/** The signing keys of a JWKS document; keys that are not for signatures, or unreadable, are left out. */
export function keysOf(jwks: unknown): IssuerKey[] {
  const given = isRecord(jwks) && Array.isArray(jwks.keys) ? jwks.keys : [];
  return given.flatMap((jwk: unknown) => {
    if (!isRecord(jwk) || typeof jwk.kty !== 'string') return [];
    if (jwk.use !== undefined && jwk.use !== 'sig') return [];
    try {
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      return [{ kid: typeof jwk.kid === 'string' ? jwk.kid : undefined, kty: jwk.kty, key }];
    } catch {
      return [];
    }
  });
}

function headerOf(token: string): { alg?: unknown; kid?: unknown } {
  try {
    const value: unknown = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * The service-account issuer's public keys (the API server's `/openid/v1/jwks`), used to tell a
 * token the API server signed from one anybody could write, before a TokenReview is spent on it.
 * The keys are fetched on first use, again when a token names a `kid` they lack or they are older
 * than `maxAgeMs`, and never more often than once per `minFetchIntervalMs`. Until a fetch has
 * succeeded every token is `unchecked` (a warning says so, once per failed fetch); after one, a
 * failed refresh keeps the keys it had.
 */
export class IssuerKeys {
  private keys: IssuerKey[] | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private fetching: Promise<void> | undefined;
  private readonly minFetchIntervalMs: number;
  private readonly maxAgeMs: number;
  private readonly fetchTimeoutMs: number;

  constructor(
    private readonly fetchJwks: () => Promise<unknown>,
    private readonly log: Warnings,
    options: IssuerKeysOptions = {},
  ) {
    this.minFetchIntervalMs = options.minFetchIntervalMs ?? 60_000;
    this.maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? 5000;
  }

  /** Whether `token` (already shaped like a JWS: `readClaims`) carries an issuer's signature. */
  async check(token: string): Promise<SignatureCheck> {
    const { alg, kid } = headerOf(token);
    const algorithm = typeof alg === 'string' ? ALGORITHMS[alg] : undefined;
    const wanted = typeof kid === 'string' ? kid : undefined;
    if (this.keys === undefined || !this.holds(wanted)) await this.refresh();
    // Keys that are only old are used while their refresh is on the way.
    else if (Date.now() - this.fetchedAt >= this.maxAgeMs) void this.refresh();
    if (this.keys === undefined) return 'unchecked';
    if (algorithm === undefined) return 'forged';
    const [signed, signature] = [token.slice(0, token.lastIndexOf('.')), token.split('.')[2]!];
    const candidates = this.keys.filter(
      (key) => key.kty === algorithm.kty && (wanted === undefined || key.kid === wanted),
    );
    const bytes = Buffer.from(signature, 'base64url');
    const made = candidates.some((candidate) => {
      try {
        const key = algorithm.ecdsa
          ? { key: candidate.key, dsaEncoding: 'ieee-p1363' as const }
          : candidate.key;
        return verify(algorithm.hash, Buffer.from(signed), key, bytes);
      } catch {
        return false;
      }
    });
    return made ? 'valid' : 'forged';
  }

  private holds(kid: string | undefined): boolean {
    return kid === undefined || this.keys?.some((key) => key.kid === kid) === true;
  }

  /** Fetches the key set unless one was fetched (or tried) too recently; shares a fetch in flight. */
  private refresh(): Promise<void> {
    if (this.fetching !== undefined) return this.fetching;
    if (Date.now() - this.fetchedAt < this.minFetchIntervalMs) return Promise.resolve();
    this.fetchedAt = Date.now();
    this.fetching = this.fetch().finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  private async fetch(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), this.fetchTimeoutMs);
    });
    try {
      const keys = keysOf(await Promise.race([this.fetchJwks(), timeout]));
      if (keys.length === 0) throw new Error('the key set holds no signing key');
      this.keys = keys;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log.warn(
        { reason, keysKnown: this.keys !== undefined },
        this.keys === undefined
          ? 'service-account issuer keys could not be fetched: new tokens are reviewed on their unverified claims alone'
          : 'service-account issuer keys could not be fetched again: the keys fetched before are kept',
      );
    } finally {
      clearTimeout(timer);
    }
  }
}
