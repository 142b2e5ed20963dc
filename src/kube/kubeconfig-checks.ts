/**
 * Which kubeconfig client-node would use, and the sentences that refuse one: start-up judges the
 * file without client-node (`preflight.ts`), the gateway holds client-node's own reading to the
 * same sentences (`open-gateway.ts`). Light on purpose: nothing here loads client-node.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { StartupError } from '../errors.js';
import type { KubeconfigContexts } from './kubeconfig-file.js';

/** The Kubernetes access a process is configured with (KUBECONFIG, KUBE_CONTEXT). */
export interface KubeAccess {
  readonly kubeconfig?: string | undefined;
  readonly kubeContext?: string | undefined;
}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

function readable(path: string): string | undefined {
  try {
    accessSync(path, constants.R_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable');
  }
}

/** Which kubeconfig file client-node would use, undefined for the in-cluster service account. */
export function kubeconfigSource(access: KubeAccess): string | undefined {
  if (access.kubeconfig !== undefined) {
    const problem = readable(access.kubeconfig);
    if (problem !== undefined) {
      throw new StartupError(
        `KUBECONFIG names ${access.kubeconfig}, which cannot be read (${problem}): point it at a kubeconfig file.`,
      );
    }
    return access.kubeconfig;
  }
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) return home;
  if (existsSync(SERVICE_ACCOUNT_TOKEN)) return undefined;
  throw new StartupError(
    'No Kubernetes API access: set KUBECONFIG to a kubeconfig file, create ~/.kube/config, or run pod-bouncer in a cluster with a service account.',
  );
}

/** How the sentences name the kubeconfig. */
const describeSource = (source: string | undefined): string =>
  source ?? 'the in-cluster configuration';

/** A kubeconfig that cannot be loaded at all. */
export function unloadable(source: string | undefined, error: unknown): StartupError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StartupError(
    `The kubeconfig ${describeSource(source)} cannot be loaded (${reason}): fix or replace it.`,
  );
}

/** Throws a StartupError when KUBE_CONTEXT, or else the current context, leads to no cluster. */
export function checkContexts(
  access: KubeAccess,
  source: string | undefined,
  kubeconfig: KubeconfigContexts,
): void {
  const where = describeSource(source);
  if (access.kubeContext !== undefined && !kubeconfig.hasContext(access.kubeContext)) {
    const known = kubeconfig.names();
    throw new StartupError(
      `KUBE_CONTEXT "${access.kubeContext}" is not a context of ${where}; it has ${known.length > 0 ? known.join(', ') : 'none'}.`,
    );
  }
  if (access.kubeContext === undefined && !kubeconfig.currentHasCluster()) {
    throw new StartupError(
      `The current context of ${where} names no cluster: set KUBE_CONTEXT or fix current-context.`,
    );
  }
}
