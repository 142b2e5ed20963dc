// A projected service-account token as the kubelet mounts one: a JWT whose claims are those the
// API server's TokenRequest writes, signed RS256 with the simulator's service-account issuer key
// (one per process), whose public half the simulator serves at /openid/v1/jwks as the API server
// does. A valid signature is not enough: what vouches for a token is the simulator's TokenReview
// (register it with `registerToken`), as on a real cluster.
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';

export interface ServiceAccountTokenSpec {
  namespace: string;
  name: string;
  /** The token's `aud` claim (a projected token's `audience`). */
  audiences: string[];
  /** Seconds from now until `exp` (default an hour, the kubelet's default); negative: expired. */
  expiresInSeconds?: number;
}

export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const KEY_ID = 'pod-bouncer-sim';

let signingKey: KeyObject | undefined;

/** The issuer's private key, made on first use (RSA 2048, as kube-apiserver's usual key). */
function issuerKey(): KeyObject {
  signingKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  return signingKey;
}

/** The JSON Web Key Set the API server serves at /openid/v1/jwks: the issuer's public key. */
export function issuerJwks(): { keys: object[] } {
  const jwk = issuerKey().export({ format: 'jwk' });
  return { keys: [{ kty: jwk.kty, n: jwk.n, e: jwk.e, use: 'sig', kid: KEY_ID, alg: 'RS256' }] };
}

/** The OpenID discovery document the API server serves at /.well-known/openid-configuration. */
export function issuerConfiguration(): object {
  return {
    issuer: SERVICE_ACCOUNT_ISSUER,
    jwks_uri: `${SERVICE_ACCOUNT_ISSUER}/openid/v1/jwks`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
  };
}

const segment = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token shaped like the API server's TokenRequest answer, for tests and benchmarks. */
export function serviceAccountJwt(spec: ServiceAccountTokenSpec): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', kid: KEY_ID };
  const claims = {
    aud: spec.audiences,
    exp: now + (spec.expiresInSeconds ?? 3600),
    iat: now,
    nbf: now,
    iss: SERVICE_ACCOUNT_ISSUER,
    jti: randomUUID(),
    sub: `system:serviceaccount:${spec.namespace}:${spec.name}`,
    'kubernetes.io': {
      namespace: spec.namespace,
      serviceaccount: { name: spec.name, uid: randomUUID() },
    },
  };
  const signed = `${segment(header)}.${segment(claims)}`;
  const signature = sign('sha256', Buffer.from(signed), issuerKey()).toString('base64url');
  return `${signed}.${signature}`;
}
