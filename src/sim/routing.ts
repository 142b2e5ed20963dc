// Splits an API path into what it addresses, the way the API server's request-info resolver does.

export interface ResourcePath {
  group: string;
  version: string;
  plural: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export type ParsedPath =
  | { kind: 'version' | 'health' | 'coreVersions' | 'groupList' | 'unknown' }
  | { kind: 'issuerConfiguration' | 'issuerKeys' }
  | { kind: 'resourceList'; group: string; version: string }
  | { kind: 'openapiRoot' }
  | { kind: 'openapiGroupVersion'; group: string; version: string }
  | { kind: 'namespace'; name?: string }
  | { kind: 'resource'; resource: ResourcePath };

const HEALTH_PATHS = new Set(['/healthz', '/readyz', '/livez']);

/** Paths that name one document each. */
const FIXED_PATHS = new Map<string, ParsedPath>([
  ['/version', { kind: 'version' }],
  ['/api', { kind: 'coreVersions' }],
  ['/apis', { kind: 'groupList' }],
  ['/openapi/v3', { kind: 'openapiRoot' }],
  // Service-account issuer discovery (kube-apiserver's ServiceAccountIssuerDiscovery).
  ['/.well-known/openid-configuration', { kind: 'issuerConfiguration' }],
  ['/openid/v1/jwks', { kind: 'issuerKeys' }],
]);

export function parsePath(pathname: string): ParsedPath {
  const fixed = FIXED_PATHS.get(pathname);
  if (fixed !== undefined) return fixed;
  if (HEALTH_PATHS.has(pathname)) return { kind: 'health' };
  if (pathname.startsWith('/openapi/v3/'))
    return openApiPath(pathname.slice('/openapi/v3/'.length));
  const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (segments[0] === 'api' && segments[1])
    return parseGroupPath('', segments[1], segments.slice(2));
  if (segments[0] === 'apis' && segments[1] && segments[2]) {
    return parseGroupPath(segments[1], segments[2], segments.slice(3));
  }
  return { kind: 'unknown' };
}

function parseGroupPath(group: string, version: string, rest: string[]): ParsedPath {
  const [first, second, third, ...tail] = rest;
  if (first === undefined) return { kind: 'resourceList', group, version };
  if (first !== 'namespaces') return resourcePath(group, version, undefined, rest);
  if (third === undefined) {
    return group === '' ? { kind: 'namespace', name: second } : { kind: 'unknown' };
  }
  return resourcePath(group, version, second, [third, ...tail]);
}

function resourcePath(
  group: string,
  version: string,
  namespace: string | undefined,
  rest: string[],
): ParsedPath {
  const [plural, name, subresource, ...extra] = rest;
  if (!plural || extra.length > 0) return { kind: 'unknown' };
  return { kind: 'resource', resource: { group, version, plural, namespace, name, subresource } };
}

/** `api/v1` or `apis/<group>/<version>`, as /openapi/v3 names a group version's document. */
function openApiPath(rest: string): ParsedPath {
  const segments = rest.split('/').filter(Boolean);
  if (segments.length === 2 && segments[0] === 'api') {
    return { kind: 'openapiGroupVersion', group: '', version: segments[1]! };
  }
  if (segments.length === 3 && segments[0] === 'apis') {
    return { kind: 'openapiGroupVersion', group: segments[1]!, version: segments[2]! };
  }
  return { kind: 'unknown' };
}
