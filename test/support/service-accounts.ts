import { serviceAccountJwt } from '../../src/sim/index.js';
import { directive, startHarness, type Harness } from './harness.js';
import type { LogCapture } from './log-capture.js';

/** The audience pod-bouncer's TokenReviews ask for in these tests. */
export const AUDIENCE = 'pod-bouncer';

/** A service account as WEBHOOK_ALLOWED_SERVICEACCOUNTS names it: `namespace:name`. */
export type Account = `${string}:${string}`;

/** A projected service-account token of `account` (a JWT for `audience`), as the kubelet mounts one. */
export function projectedToken(account: Account, audience = AUDIENCE): string {
  const [namespace, name] = account.split(':') as [string, string];
  return serviceAccountJwt({ namespace, name, audiences: [audience] });
}

/** The settings that admit the service accounts `allowed` ("ns:name,…") by TokenReview. */
export function tokenReviewEnv(allowed: string): Record<string, string> {
  return { WEBHOOK_TOKENREVIEW_AUDIENCE: AUDIENCE, WEBHOOK_ALLOWED_SERVICEACCOUNTS: allowed };
}

/** Makes `token` known to the simulator's API server: its review names `account`, for `audiences`. */
export function registerServiceAccount(
  h: Harness,
  token: string,
  account: Account,
  audiences = [AUDIENCE],
): void {
  h.sim.registerToken(token, { username: `system:serviceaccount:${account}`, audiences });
}

/**
 * A pod-bouncer without a worker and without static tokens, that admits cert-manager:issuer by
 * TokenReview and logs at info into `logs`, with an empty directive `certs` in `namespace`.
 */
export async function startTokenReviewHarness(
  name: string,
  namespace: string,
  logs: LogCapture,
): Promise<Harness> {
  const h = await startHarness(name, {
    worker: false,
    logDestination: logs,
    env: { LOG_LEVEL: 'info', WEBHOOK_TOKENS: '', ...tokenReviewEnv('cert-manager:issuer') },
  });
  h.sim.applyDirective(directive(namespace, 'certs', [{ namespace, labels: {} }]));
  return h;
}

/** A dry run of `namespace`/certs, sent with `token`. */
export function dryRunWith(h: Harness, namespace: string, token: string): Promise<Response> {
  return fetch(`${h.serve.url}/v1/events?dryRun=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ directive: { namespace, name: 'certs' } }),
  });
}

/** TokenReviews the simulator answered since its request log was last reset. */
export function tokenReviews(h: Harness): number {
  return h.sim.requests().filter((request) => request.resource === 'tokenreviews').length;
}
