// A kubeconfig for the simulator. client-node refuses http:// servers unless the cluster sets
// insecure-skip-tls-verify, so it always does.
import { stringify } from 'yaml';

export const SIM_TOKEN = 'sim-admin-token';

export function kubeconfigYaml(server: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'sim', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'sim-admin', user: { token: SIM_TOKEN } }],
    contexts: [
      { name: 'sim', context: { cluster: 'sim', user: 'sim-admin', namespace: 'default' } },
    ],
    'current-context': 'sim',
    preferences: {},
  });
}
