// Server-side printing: the meta.k8s.io Table a client gets when it asks for
// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1` (what `kubectl get` sends), built the way
// the API server's handlers build it (apiserver endpoints/handlers/response.go `asTable`).
import { crdPrinter } from './crd-columns.js';
import type { KubeObject } from './objects.js';
import { podPrinter } from './pod-printer.js';
import type { ResourceType } from './resources.js';
import { defaultPrinter } from './table-columns.js';
import type { Printer } from './table-columns.js';

/** What each row carries besides its cells: TableOptions.includeObject. */
export type IncludeObject = 'Metadata' | 'Object' | 'None';

export interface TableRequest {
  /** meta.k8s.io's version the client asked for: v1 or v1beta1. */
  version: string;
  includeObject: IncludeObject;
}

const crdPrinters = new WeakMap<ResourceType, Printer>();

/** The printer of a resource: the CRD's columns for custom resources, kubectl's for pods. */
export function printerFor(type: ResourceType): Printer {
  if (type.printerColumns !== undefined) {
    let printer = crdPrinters.get(type);
    if (printer === undefined) {
      printer = crdPrinter(type.printerColumns);
      crdPrinters.set(type, printer);
    }
    return printer;
  }
  return type.storeKey === 'pods' ? podPrinter : defaultPrinter;
}

interface ListBody {
  metadata?: { resourceVersion?: string; continue?: string };
  items: KubeObject[];
}

function isList(body: object): body is ListBody {
  return Array.isArray((body as { items?: unknown }).items);
}

/**
 * A list or a single object as a Table. `noHeaders` leaves the column definitions out (null), as
 * the API server does for every watch event after the first.
 */
export function toTable(
  printer: Printer,
  body: KubeObject | ListBody,
  request: TableRequest,
  noHeaders = false,
): object {
  const now = Date.now();
  const items = isList(body) ? body.items : [body];
  const { resourceVersion, continue: next } = isList(body) ? (body.metadata ?? {}) : body.metadata;
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${request.version}`,
    metadata: {
      ...(resourceVersion ? { resourceVersion } : {}),
      ...(next ? { continue: next } : {}),
    },
    columnDefinitions: noHeaders ? null : printer.columns,
    rows: items.map((obj) => {
      const printed = printer.row(obj, now);
      return { ...printed, object: rowObject(obj, request) };
    }),
  };
}

/** What a row carries as `object`: by default only the metadata (PartialObjectMetadata). */
function rowObject(obj: KubeObject, request: TableRequest): unknown {
  switch (request.includeObject) {
    case 'Object':
      return obj;
    case 'None':
      return null;
    default:
      return {
        kind: 'PartialObjectMetadata',
        apiVersion: `meta.k8s.io/${request.version}`,
        metadata: obj.metadata,
      };
  }
}
