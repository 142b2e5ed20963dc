// Maps a request to a verb on a resource and runs its handler, the way the API server's
// request-info resolver and registry do.
import { methodNotAllowed, pathNotFound } from './api-errors.js';
import type { CrudHandlers } from './crud.js';
import {
  coreVersions,
  groupList,
  namespaceList,
  namespaceObject,
  resourceList,
  versionInfo,
} from './discovery.js';
import { openApiGroupVersion, openApiRoot } from './openapi.js';
import { issuerConfiguration, issuerJwks } from './service-account-token.js';
import type { ApiRequest, Handler, Reply } from './requests.js';
import { ok } from './requests.js';
import type { ResourceRegistry, ResourceType, Verb } from './resources.js';
import type { ParsedPath, ResourcePath } from './routing.js';
import type { ObjectStore } from './store.js';

export interface IncomingCall {
  method: string;
  parsed: ParsedPath;
  query: URLSearchParams;
  contentType: string;
  body: unknown;
  userAgent?: string | undefined;
}

const NAMESPACE_BOUND: Verb[] = ['get', 'create', 'update', 'patch', 'delete', 'evict'];

export class ApiDispatcher {
  private readonly overrides = new Map<string, Handler>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly crud: CrudHandlers,
    private readonly store: ObjectStore,
    private readonly serverAddress: () => string,
  ) {}

  /** Replaces the generic handler of one verb of one resource (pods' delete, tokenreviews' create). */
  override(storeKey: string, verb: Verb, handler: Handler): void {
    this.overrides.set(`${storeKey}:${verb}`, handler);
  }

  dispatch(call: IncomingCall): Reply {
    const { parsed, method } = call;
    if (parsed.kind === 'resource') return this.resource(call, parsed.resource);
    if (method !== 'GET') throw methodNotAllowed(method);
    if (parsed.kind === 'namespace') {
      return ok(
        parsed.name
          ? namespaceObject(parsed.name)
          : namespaceList(this.store.namespaces(), this.store.resourceVersion()),
      );
    }
    return ok(this.document(parsed) ?? throwNotFound());
  }

  /** The discovery and OpenAPI documents; undefined for a path the simulator does not serve. */
  private document(parsed: ParsedPath): object | string | undefined {
    switch (parsed.kind) {
      case 'version':
        return versionInfo();
      case 'health':
        return 'ok';
      case 'issuerConfiguration':
        return issuerConfiguration();
      case 'issuerKeys':
        return issuerJwks();
      case 'coreVersions':
        return coreVersions(this.serverAddress());
      case 'groupList':
        return groupList(this.registry);
      case 'resourceList':
        return resourceList(this.registry, parsed);
      case 'openapiRoot':
        return openApiRoot(this.registry);
      case 'openapiGroupVersion':
        return openApiGroupVersion(this.registry, parsed);
      default:
        throw pathNotFound();
    }
  }

  private resource(call: IncomingCall, path: ResourcePath): Reply {
    const type = this.registry.find(path.group, path.version, path.plural);
    if (!type || (!type.namespaced && path.namespace !== undefined)) throw pathNotFound();
    const verb = verbOf(call.method, path, call.query);
    if (!verb || !type.verbs.includes(verb)) throw methodNotAllowed(call.method);
    if (type.namespaced && path.namespace === undefined && NAMESPACE_BOUND.includes(verb))
      throw pathNotFound();
    if (!subresourceAllowed(type, verb, path.subresource)) throw pathNotFound();
    const req: ApiRequest = {
      method: call.method,
      path,
      type,
      namespace: path.namespace ?? '',
      query: call.query,
      contentType: call.contentType,
      body: call.body,
      userAgent: call.userAgent,
    };
    const handler = this.overrides.get(`${type.storeKey}:${verb}`) ?? this.generic(verb);
    return handler(req);
  }

  private generic(verb: Verb): Handler {
    if (verb === 'evict') throw pathNotFound();
    return (req) => this.crud[verb](req);
  }
}

function throwNotFound(): never {
  throw pathNotFound();
}

export function isWatch(query: URLSearchParams): boolean {
  const flag = query.get('watch');
  return flag === 'true' || flag === '1';
}

type VerbResolver = (path: ResourcePath, query: URLSearchParams) => Verb | undefined;

const onNamed =
  (verb: Verb): VerbResolver =>
  (path) =>
    path.name !== undefined ? verb : undefined;

const VERBS_BY_METHOD: Record<string, VerbResolver> = {
  GET: (path, query) => {
    if (path.name !== undefined) return 'get';
    return isWatch(query) ? 'watch' : 'list';
  },
  POST: (path) => {
    if (path.name === undefined) return 'create';
    return path.subresource === 'eviction' ? 'evict' : undefined;
  },
  PUT: onNamed('update'),
  PATCH: onNamed('patch'),
  DELETE: onNamed('delete'),
};

function verbOf(method: string, path: ResourcePath, query: URLSearchParams): Verb | undefined {
  return VERBS_BY_METHOD[method]?.(path, query);
}

function subresourceAllowed(
  type: ResourceType,
  verb: Verb,
  subresource: string | undefined,
): boolean {
  if (subresource === undefined) return verb !== 'evict';
  if (subresource === 'status')
    return type.statusSubresource === true && ['get', 'update', 'patch'].includes(verb);
  return subresource === 'eviction' && verb === 'evict';
}
