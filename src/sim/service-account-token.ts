// A projected service-account token as the kubelet mounts one: a JWT whose claims are those the
// API server's TokenRequest writes. Its signature is random bytes: what vouches for it is the
// simulator's TokenReview (register it with `registerToken`), as on a real cluster.
import { randomBytes, randomUUID } from 'node:crypto';

export interface ServiceAccountTokenSpec {
  namespace: string;
  name: string;
  /** The token's `aud` claim (a projected token's `audience`). */
  audiences: string[];
  /** Seconds from now until `exp` (default an hour, the kubelet's default); negative: expired. */
  expiresInSeconds?: number;
}

const ISSUER = 'https://kubernetes.default.svc.cluster.local';

const segment = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token shaped like the API server's TokenRequest answer, for tests and benchmarks. */
export function serviceAccountJwt(spec: ServiceAccountTokenSpec): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', kid: 'pod-bouncer-sim' };
  const claims = {
    aud: spec.audiences,
    exp: now + (spec.expiresInSeconds ?? 3600),
    iat: now,
    nbf: now,
    iss: ISSUER,
    jti: randomUUID(),
    sub: `system:serviceaccount:${spec.namespace}:${spec.name}`,
    'kubernetes.io': {
      namespace: spec.namespace,
      serviceaccount: { name: spec.name, uid: randomUUID() },
    },
  };
  return `${segment(header)}.${segment(claims)}.${randomBytes(256).toString('base64url')}`;
}
