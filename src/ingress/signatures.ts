import { createHmac, hash, timingSafeEqual } from 'node:crypto';

/** Standard Webhooks' tolerance: a timestamp further than this from now is refused. */
export const STANDARD_TOLERANCE_SECONDS = 5 * 60;

const digest = (value: string | Buffer): Buffer => hash('sha256', value, 'buffer');

/** Constant-time equality that does not leak the length of the secret either. */
export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Whether an `X-Signature-256` header has the one shape that can verify, `sha256=` and 64 hex
 * digits (of either case): decidable before the body is read, so no other header costs a hash.
 */
export function wellFormedHmac(header: unknown): header is string {
  return typeof header === 'string' && /^sha256=[0-9a-fA-F]{64}$/.test(header);
}

/**
 * GitHub's scheme: `X-Signature-256: sha256=<hex HMAC-SHA256 of the body>`. The HMAC is computed
 * over the exact bytes received; an empty body never verifies, so the one signature that would
 * otherwise be valid for every bodiless request cannot be captured and replayed.
 */
export function validHmacSignature(secret: string, body: Buffer, header: unknown): boolean {
  if (body.length === 0 || !wellFormedHmac(header)) return false;
  const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return safeEqual(header.toLowerCase(), expected);
}

/** The three Standard Webhooks headers, read from a request's headers. */
export interface StandardHeaders {
  id: string;
  timestamp: number;
  signatures: string;
}

/** The headers when all three are present and well-formed, else undefined. */
export function standardHeaders(headers: Record<string, unknown>): StandardHeaders | undefined {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || !/^[\x21-\x7e]{1,256}$/.test(id)) return undefined;
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp)) return undefined;
  if (typeof signatures !== 'string' || signatures.length > 4096) return undefined;
  return { id, timestamp: Number(timestamp), signatures };
}

/** Whether the timestamp is within the tolerance of now: decidable before the body is read. */
export function timelyStandard(headers: StandardHeaders, nowMs = Date.now()): boolean {
  return Math.abs(Math.floor(nowMs / 1000) - headers.timestamp) <= STANDARD_TOLERANCE_SECONDS;
}

/** The base64 of 32 bytes as node:crypto writes it: the only form an expected signature takes. */
const V1_SIGNATURE = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/**
 * The `v1` signatures of a `webhook-signature` list that can verify: an empty list means none can,
 * which is decidable before the body is read.
 */
export function v1Signatures(list: string): string[] {
  const found: string[] = [];
  for (const entry of list.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version === 'v1' && signature !== undefined && V1_SIGNATURE.test(signature)) {
      found.push(signature);
    }
  }
  return found;
}

/**
 * Standard Webhooks: `webhook-signature` holds space-separated `v1,<base64>` entries, any of which
 * may be the HMAC-SHA256 of `id.timestamp.body` under the decoded `whsec_` key. Computed with
 * node:crypto over the exact bytes (no text decoding of the body), compared in constant time.
 */
export function validStandardSignature(
  key: Buffer,
  headers: StandardHeaders,
  body: Buffer,
): boolean {
  const expected = createHmac('sha256', key)
    .update(`${headers.id}.${headers.timestamp}.`)
    .update(body)
    .digest('base64');
  let valid = false;
  // Every entry is compared, so the answer time does not tell which one matched.
  for (const signature of v1Signatures(headers.signatures)) {
    if (safeEqual(signature, expected)) valid = true;
  }
  return valid;
}
