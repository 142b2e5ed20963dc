import { isRecord } from '../records.js';

/** What a bearer token says of itself, unverified: who it names and for whom it was minted. */
export interface TokenClaims {
  /** The service account in `sub`, as `namespace:name`. */
  account: string;
  /** The `aud` claim. */
  audiences: string[];
}

/** Longer than any projected token (about 1 KiB); the header limit bounds it anyway. */
const MAX_TOKEN_LENGTH = 8192;
/** The API server's own leeway on `exp` and `nbf`. */
const LEEWAY_SECONDS = 60;
const SEGMENT = /^[A-Za-z0-9_-]+$/;
const SUBJECT = /^system:serviceaccount:([^:\s]+):([^:\s]+)$/;

function segment(part: string | undefined): Record<string, unknown> | undefined {
  if (part === undefined || !SEGMENT.test(part)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function audiencesOf(aud: unknown): string[] | undefined {
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud) && aud.every((entry) => typeof entry === 'string')) return aud;
  return undefined;
}

/**
 * The claims of a token shaped like a projected service-account token: a JWS of three base64url
 * segments, signed (`alg` other than `none`), whose `sub` is a service account, with an `aud` and an
 * `exp` that has not passed (nor an `nbf` to come). Anything else is `undefined`: no API server
 * would vouch for it, so it is refused without a TokenReview. Nothing here is verified: the claims
 * only decide whether a review is worth its budget, and in which lane (`TokenVerdicts`); the
 * review's answer alone admits. Pure.
 */
export function readClaims(token: string, nowMs = Date.now()): TokenClaims | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const [header, payload, signature, ...rest] = token.split('.');
  if (rest.length > 0 || signature === undefined || !SEGMENT.test(signature)) return undefined;
  if (!signed(segment(header))) return undefined;
  const claims = segment(payload);
  if (claims === undefined || !timely(claims, nowMs / 1000)) return undefined;
  const subject = typeof claims.sub === 'string' ? SUBJECT.exec(claims.sub) : null;
  const audiences = audiencesOf(claims.aud);
  if (subject === null || audiences === undefined) return undefined;
  return { account: `${subject[1]}:${subject[2]}`, audiences };
}

/** A JOSE header that names a signature algorithm (not `none`). */
function signed(header: Record<string, unknown> | undefined): boolean {
  return typeof header?.alg === 'string' && header.alg.toLowerCase() !== 'none';
}

/** An `exp` that has not passed, and no `nbf` to come, within the leeway. */
function timely(claims: Record<string, unknown>, now: number): boolean {
  if (typeof claims.exp !== 'number' || claims.exp + LEEWAY_SECONDS <= now) return false;
  return typeof claims.nbf !== 'number' || claims.nbf - LEEWAY_SECONDS <= now;
}
