import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import {
  DIRECTIVE_GROUP,
  DIRECTIVE_PLURAL,
  DIRECTIVE_VERSION,
  PAUSED_ANNOTATION,
  type Directive,
  type ObjectRef,
} from '../directive/types.js';
import { observeKubeRequest } from '../metrics/kube.js';
import { mapApiError } from './api-errors.js';

export { isPaused } from '../directive/paused.js';

/**
 * Sets (`"true"`) or removes (`null`) the pause annotation with a merge patch of
 * `metadata.annotations` alone, which touches no other annotation and no field another manager
 * owns; `kubectl annotate` does the same. Sent once: an admin repeats it if it fails.
 */
export async function setPaused(
  kubeConfig: KubeConfig,
  ref: ObjectRef,
  paused: boolean,
): Promise<Directive> {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const what = `${paused ? 'pause' : 'resume'} directive ${ref.namespace}/${ref.name}`;
  try {
    const object: unknown = await observeKubeRequest('patch', () =>
      custom.patchNamespacedCustomObject(
        {
          group: DIRECTIVE_GROUP,
          version: DIRECTIVE_VERSION,
          plural: DIRECTIVE_PLURAL,
          namespace: ref.namespace,
          name: ref.name,
          body: { metadata: { annotations: { [PAUSED_ANNOTATION]: paused ? 'true' : null } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    return object as Directive;
  } catch (error) {
    throw mapApiError(error, what);
  }
}
