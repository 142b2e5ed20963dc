// Programmatic writes of PodBounceDirectives, with the same rules as the HTTP API: schema
// validation from the CRD, generation 1 on create and +1 when the spec changes, status untouched.
import type { Cluster } from './cluster.js';
import type { DirectiveObject, KubeObject, ObjectMetaInput } from './objects.js';
import { isPlainObject } from './objects.js';

/** Creates the directive, or updates its spec, labels and annotations. Throws an ApiError (422) when invalid. */
export function applyDirective(cluster: Cluster, obj: object): DirectiveObject {
  const input = obj as Partial<KubeObject>;
  const meta: ObjectMetaInput = isPlainObject(input.metadata) ? input.metadata : {};
  const namespace = meta.namespace ?? 'default';
  const type = cluster.directiveType;
  const current = cluster.store.get(type.storeKey, namespace, meta.name ?? '');
  if (!current) return cluster.writer.create(type, namespace, obj) as DirectiveObject;
  const desired = {
    ...current,
    spec: input.spec,
    metadata: {
      ...current.metadata,
      labels: meta.labels ?? current.metadata.labels,
      annotations: meta.annotations ?? current.metadata.annotations,
    },
  };
  return cluster.writer.update(type, current, desired) as DirectiveObject;
}
