// The OpenAPI v3 discovery a real kubectl reads before it writes: `kubectl apply` and `create`
// look up whether the PATCH of the object's kind takes the `fieldValidation` query parameter and,
// when it does, leave validation to the server (which checks the CRD's schema here). Without
// these documents kubectl refuses to write at all ("failed to download openapi"). Paths and
// operations only: no component schemas, so kubectl's apply falls back to a JSON merge patch for
// every kind, as it does for custom resources.
import { createHash } from 'node:crypto';
import { versionInfo } from './discovery.js';
import type { GroupVersion } from './resource-type.js';
import type { ResourceRegistry, ResourceType } from './resources.js';

function keyOf(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** `GET /openapi/v3`: one entry per group version, each with its document's URL. */
export function openApiRoot(registry: ResourceRegistry): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const type of registry.types) {
    const key = keyOf(type.group, type.version);
    const hash = createHash('sha256').update(key).digest('hex').slice(0, 16).toUpperCase();
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}

const query = (name: string): object => ({ name, in: 'query', schema: { type: 'string' } });
const WRITE_PARAMETERS = ['dryRun', 'fieldManager', 'fieldValidation'].map(query);

function operations(type: ResourceType, verbs: readonly string[]): Record<string, object> {
  const gvk = { group: type.group, version: type.version, kind: type.kind };
  const operation = (action: string, write: boolean): object => ({
    operationId: `${action}${type.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    ...(write ? { parameters: WRITE_PARAMETERS } : {}),
    responses: { '200': { description: 'OK' } },
  });
  const byMethod: Record<string, [string, boolean]> = {
    get: ['get', false],
    post: ['post', true],
    put: ['put', true],
    patch: ['patch', true],
    delete: ['delete', false],
  };
  return Object.fromEntries(
    verbs.map((method) => [method, operation(...(byMethod[method] ?? ['get', false]))]),
  );
}

/** `GET /openapi/v3/apis/<group>/<version>` (or `api/v1`); undefined for a version not served. */
export function openApiGroupVersion(
  registry: ResourceRegistry,
  { group, version }: GroupVersion,
): object | undefined {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const paths: Record<string, object> = {};
  for (const type of types) {
    const base = `/${keyOf(group, version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}`;
    const item = type.verbs.filter((v) => ['get', 'update', 'patch', 'delete'].includes(v));
    paths[base] = operations(type, type.verbs.includes('create') ? ['get', 'post'] : ['get']);
    paths[`${base}/{name}`] = operations(
      type,
      item.map((verb) => (verb === 'update' ? 'put' : verb)),
    );
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: (versionInfo() as { gitVersion: string }).gitVersion },
    paths,
    components: { schemas: {} },
  };
}
