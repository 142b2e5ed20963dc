// The OpenAPI v3 discovery kubectl reads before it writes: the root lists one document per group
// version, and each document's PATCH operations name their kind and take `fieldValidation`.
// kubectl then leaves validation to the server (as it does against a real API server) instead of
// asking for /openapi/v2 and refusing to apply without `--validate=false`.
import { createHash } from 'node:crypto';
import type { ResourceRegistry, ResourceType } from './resources.js';

const PATCH_PARAMETERS = ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
  name,
  in: 'query',
  schema: { type: name === 'force' ? 'boolean' : 'string' },
  uniqueItems: true,
}));

// A custom resource takes no strategic merge patch; kubectl reads this and sends a merge patch.
const CUSTOM_PATCH_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
];
const CORE_PATCH_TYPES = [...CUSTOM_PATCH_TYPES, 'application/strategic-merge-patch+json'];

/** `apis/<group>/<version>` or `api/v1`: the key kubectl looks a group version up by. */
function documentKey(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function groupVersions(registry: ResourceRegistry): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const type of registry.types) {
    seen.set(documentKey(type.group, type.version), { group: type.group, version: type.version });
  }
  return [...seen.values()];
}

export function openApiRoot(registry: ResourceRegistry): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const { group, version } of groupVersions(registry)) {
    const key = documentKey(group, version);
    const body = JSON.stringify(openApiDocument(registry, group, version));
    const hash = createHash('sha512').update(body).digest('hex').slice(0, 128);
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}

/** The document of one group version, or undefined when the simulator serves none of it. */
export function openApiDocument(
  registry: ResourceRegistry,
  group: string,
  version: string,
): object | undefined {
  const types = registry.types.filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const paths: Record<string, object> = {};
  for (const type of types) {
    if (!type.verbs.includes('patch')) continue;
    paths[objectPath(type)] = { patch: patchOperation(type) };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.35.0-sim' },
    paths,
  };
}

function objectPath(type: ResourceType): string {
  const prefix = `/${documentKey(type.group, type.version)}`;
  const scope = type.namespaced ? '/namespaces/{namespace}' : '';
  return `${prefix}${scope}/${type.plural}/{name}`;
}

function patchOperation(type: ResourceType): object {
  const content = Object.fromEntries(
    (type.custom ? CUSTOM_PATCH_TYPES : CORE_PATCH_TYPES).map((mediaType) => [
      mediaType,
      { schema: { type: 'object' } },
    ]),
  );
  return {
    operationId: `patch${type.kind}`,
    parameters: PATCH_PARAMETERS,
    requestBody: { content, required: true },
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': {
      group: type.group,
      version: type.version,
      kind: type.kind,
    },
  };
}
