// Content negotiation of reads: a client that accepts `application/json;as=Table;g=meta.k8s.io;v=v1`
// first (kubectl get) gets a Table of what it read, list, get and watch alike; any other client
// gets the objects themselves, as before. Errors (Status) are never transformed.
import { badRequest } from './api-errors.js';
import type { KubeObject } from './objects.js';
import type { Reply } from './requests.js';
import type { ResourceRegistry } from './resources.js';
import type { ParsedPath } from './routing.js';
import { namespacePrinter } from './table-columns.js';
import type { Printer } from './table-columns.js';
import { printerFor, toTable } from './table.js';
import type { IncludeObject, TableRequest } from './table.js';
import type { WireEvent } from './watch.js';

const TABLE_VERSIONS = new Set(['v1', 'v1beta1']);
const INCLUDE_OBJECT = new Set<string>(['Metadata', 'Object', 'None']);

interface MediaRange {
  type: string;
  params: Map<string, string>;
}

function parseAccept(header: string): MediaRange[] {
  return header.split(',').map((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim());
    return {
      type: type.toLowerCase(),
      params: new Map(
        params.map((param) => {
          const [key = '', value = ''] = param.split('=').map((part) => part.trim());
          return [key.toLowerCase(), value.replace(/^"|"$/g, '')];
        }),
      ),
    };
  });
}

const isJson = (type: string): boolean =>
  type === 'application/json' || type === 'application/*' || type === '*/*';

/**
 * The Table a request asks for, if its Accept header's first media range the simulator can serve
 * is one: the API server takes the ranges in order (kubectl lists Table v1, Table v1beta1, then
 * plain JSON). An `includeObject` other than Metadata, Object or None is a 400, as there.
 */
export function tableRequestOf(
  accept: string | undefined,
  query: URLSearchParams,
): TableRequest | undefined {
  for (const range of parseAccept(accept ?? '')) {
    if (!isJson(range.type)) continue;
    const as = range.params.get('as');
    if (as === undefined) return undefined;
    const version = range.params.get('v') ?? '';
    if (as !== 'Table' || range.params.get('g') !== 'meta.k8s.io' || !TABLE_VERSIONS.has(version))
      continue;
    const includeObject = query.get('includeObject') ?? 'Metadata';
    if (!INCLUDE_OBJECT.has(includeObject)) {
      throw badRequest(
        `Unable to convert to Table as requested: includeObject: Invalid value: "${includeObject}": must be 'Metadata', 'Object', or 'None'`,
      );
    }
    return { version, includeObject: includeObject as IncludeObject };
  }
  return undefined;
}

function printerOfPath(registry: ResourceRegistry, parsed: ParsedPath): Printer | undefined {
  if (parsed.kind === 'namespace') return namespacePrinter;
  if (parsed.kind !== 'resource' || parsed.resource.subresource !== undefined) return undefined;
  const { group, version, plural } = parsed.resource;
  const type = registry.find(group, version, plural);
  return type ? printerFor(type) : undefined;
}

export interface ReadCall {
  method: string;
  parsed: ParsedPath;
  query: URLSearchParams;
  accept: string | undefined;
}

/** The reply as the client asked to see it: a successful read as a Table when it asked for one. */
export function presented(registry: ResourceRegistry, call: ReadCall, reply: Reply): Reply {
  if (call.method !== 'GET') return reply;
  const printer = printerOfPath(registry, call.parsed);
  if (printer === undefined) return reply;
  const request = tableRequestOf(call.accept, call.query);
  if (request === undefined) return reply;
  if ('watch' in reply)
    return { watch: { ...reply.watch, present: tableEvents(printer, request) } };
  if (reply.status >= 300 || typeof reply.body !== 'object' || reply.body === null) return reply;
  return { ...reply, body: toTable(printer, reply.body as KubeObject, request) };
}

/**
 * Each watch event's object as a Table of one row; only the first carries the column
 * definitions (apiserver's watchEmbeddedEncoder sets NoHeaders after it). ERROR events carry a
 * Status, which stays as it is.
 */
function tableEvents(printer: Printer, request: TableRequest): (event: WireEvent) => WireEvent {
  let headersSent = false;
  return (event) => {
    if (event.type === 'ERROR') return event;
    const object = toTable(printer, event.object as KubeObject, request, headersSent);
    headersSent = true;
    return { type: event.type, object };
  };
}
