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
  | { kind: 'resourceList'; group: string; version: string }
  | { kind: 'openApiRoot' }
  | { kind: 'openApiDocument'; group: string; version: string }
  | { kind: 'namespace'; name?: string }
  | { kind: 'resource'; resource: ResourcePath };

const HEALTH_PATHS = new Set(['/healthz', '/readyz', '/livez']);

export function parsePath(pathname: string): ParsedPath {
  if (pathname === '/version') return { kind: 'version' };
  if (HEALTH_PATHS.has(pathname)) return { kind: 'health' };
  if (pathname === '/api') return { kind: 'coreVersions' };
  if (pathname === '/apis') return { kind: 'groupList' };
  const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (segments[0] === 'openapi' && segments[1] === 'v3') return parseOpenApiPath(segments.slice(2));
  if (segments[0] === 'api' && segments[1])
    return parseGroupPath('', segments[1], segments.slice(2));
  if (segments[0] === 'apis' && segments[1] && segments[2]) {
    return parseGroupPath(segments[1], segments[2], segments.slice(3));
  }
  return { kind: 'unknown' };
}

function parseOpenApiPath(rest: string[]): ParsedPath {
  if (rest.length === 0) return { kind: 'openApiRoot' };
  if (rest[0] === 'api' && rest.length === 2)
    return { kind: 'openApiDocument', group: '', version: rest[1] ?? '' };
  if (rest[0] === 'apis' && rest.length === 3) {
    return { kind: 'openApiDocument', group: rest[1] ?? '', version: rest[2] ?? '' };
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
