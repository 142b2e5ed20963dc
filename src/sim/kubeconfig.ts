// A kubeconfig for the simulator. client-node refuses http:// servers unless the cluster sets
// insecure-skip-tls-verify, so it always does.
import { stringify } from 'yaml';

export const SIM_TOKEN = 'sim-admin-token';
export const SIM_USER = 'sim-admin';

/**
 * A kubeconfig for `user` (default sim-admin): its token is `<user>-token`, which the request log
 * turns back into the user, so that a benchmark can tell one client's requests from another's.
 */
export function kubeconfigYaml(server: string, user = SIM_USER): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'sim', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: user, user: { token: `${user}-token` } }],
    contexts: [{ name: 'sim', context: { cluster: 'sim', user, namespace: 'default' } }],
    'current-context': 'sim',
    preferences: {},
  });
}

/** The kubeconfig user (`kubeconfigYaml`) whose token an Authorization header carries, if any. */
export function kubeconfigUserOf(authorization: string | undefined): string | undefined {
  return /^Bearer (sim-[a-z0-9-]+)-token$/.exec(authorization ?? '')?.[1];
}
