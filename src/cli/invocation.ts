// The name the executable was started under. Installed as `kubectl-pod_bouncer` on PATH it is a
// kubectl plugin: kubectl finds it by that name and runs it for `kubectl pod-bouncer …`, passing
// the rest of the command line through (and nothing of its own: no kubeconfig, no flags).
import { basename } from 'node:path';

export const PLUGIN_EXECUTABLE = 'kubectl-pod_bouncer';

/** "kubectl pod-bouncer" when run as the kubectl plugin, "pod-bouncer" when run under its own name. */
export function commandName(script: string | undefined = process.argv[1]): string | undefined {
  const name = script === undefined ? undefined : basename(script);
  if (name === PLUGIN_EXECUTABLE) return 'kubectl pod-bouncer';
  if (name === 'pod-bouncer') return 'pod-bouncer';
  return undefined;
}
