// One real, validly authenticated event per auth mode, for the attack test and benchmark.
import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { serviceAccountJwt } from '../../src/sim/service-account-token.js';
import type { AttackMode } from './attack.js';

export const ATTACK_SECRETS = {
  token: 'attack-bench-token-0123456789',
  hmac: 'attack-bench-hmac-secret',
  standard: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  // A projected token of cert-manager:issuer for the audience below (the simulator reviews it).
  serviceAccountToken: serviceAccountJwt({
    namespace: 'cert-manager',
    name: 'issuer',
    audiences: ['pod-bouncer'],
    expiresInSeconds: 24 * 3600,
  }),
  audience: 'pod-bouncer',
  serviceAccount: 'cert-manager:issuer',
};

/** The api's environment with every auth mode on. */
export function attackEnv(bodyTimeoutSeconds: number): Record<string, string> {
  return {
    WEBHOOK_TOKENS: ATTACK_SECRETS.token,
    WEBHOOK_HMAC_SECRET: ATTACK_SECRETS.hmac,
    WEBHOOK_STANDARD_SECRET: ATTACK_SECRETS.standard,
    WEBHOOK_TOKENREVIEW_AUDIENCE: ATTACK_SECRETS.audience,
    WEBHOOK_ALLOWED_SERVICEACCOUNTS: ATTACK_SECRETS.serviceAccount,
    BODY_TIMEOUT_SECONDS: String(bodyTimeoutSeconds),
    // The real events of a run outnumber the default limit; attackers never reach it (no credential).
    RATE_LIMIT_PER_MINUTE: '1000000',
    MAX_RUNS_PER_HOUR: '1000000',
  };
}

/** Headers that validly authenticate `body` in `mode`. */
export function realHeaders(mode: AttackMode, body: string): Record<string, string> {
  switch (mode) {
    case 'hmac':
      return {
        'x-signature-256': `sha256=${createHmac('sha256', ATTACK_SECRETS.hmac).update(body).digest('hex')}`,
      };
    case 'standard': {
      const id = `msg_${randomUUID()}`;
      const at = new Date();
      return {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(ATTACK_SECRETS.standard).sign(id, at, body),
      };
    }
    case 'tokenreview':
      return { authorization: `Bearer ${ATTACK_SECRETS.serviceAccountToken}` };
    default:
      return { authorization: `Bearer ${ATTACK_SECRETS.token}` };
  }
}

/** Posts one event in `mode`; answers the status and the time it took. */
export async function sendReal(
  url: string,
  mode: AttackMode,
  directive: { namespace: string; name: string },
  dryRun = false,
): Promise<{ status: number; ms: number }> {
  const body = JSON.stringify({ directive, issuedAt: new Date(Date.now() - 1000).toISOString() });
  const started = performance.now();
  const response = await fetch(`${url}/v1/events${dryRun ? '?dryRun=true' : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...realHeaders(mode, body) },
    body,
  });
  await response.text();
  return { status: response.status, ms: performance.now() - started };
}
