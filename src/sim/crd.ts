// Loads the chart's CRD so the simulator validates exactly what a cluster would.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../package-root.js';
import { isPlainObject } from './objects.js';
import type { JsonSchema } from './schema.js';

/** One of a CRD version's `additionalPrinterColumns`, as apiextensions.k8s.io/v1 spells it. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  format?: string;
  description?: string;
  priority?: number;
}

export interface CrdDefinition {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  statusSubresource: boolean;
  schema: JsonSchema;
  /** What `kubectl get` shows after NAME; empty when the CRD declares none. */
  printerColumns: PrinterColumn[];
}

interface CrdVersion {
  name: string;
  storage?: boolean;
  subresources?: { status?: object };
  additionalPrinterColumns?: PrinterColumn[];
  schema?: { openAPIV3Schema?: JsonSchema };
}

interface CrdNames {
  kind?: string;
  listKind?: string;
  plural?: string;
  singular?: string;
  shortNames?: string[];
}

interface CrdDocument {
  spec?: { group?: string; names?: CrdNames; versions?: CrdVersion[] };
}

/** The chart's CRD path, under the package root. */
export function defaultCrdPath(): string {
  return join(packageRoot(), 'charts', 'pod-bouncer', 'crds', 'podbouncedirectives.yaml');
}

/** Reads a CRD file and returns its storage version; throws a plain sentence when it is unusable. */
export async function loadCrd(path: string): Promise<CrdDefinition> {
  const doc: unknown = parse(await readFile(path, 'utf8'));
  const spec = (isPlainObject(doc) ? (doc as CrdDocument).spec : undefined) ?? {};
  const names = spec.names ?? {};
  const version = storageVersion(spec.versions ?? []);
  const schema = version?.schema?.openAPIV3Schema;
  if (!spec.group || !names.kind || !names.plural || !version || !schema) {
    throw new Error(`${path} is not a CustomResourceDefinition with a group, names and a schema`);
  }
  return toDefinition(
    spec.group,
    { ...names, kind: names.kind, plural: names.plural },
    version,
    schema,
  );
}

function storageVersion(versions: CrdVersion[]): CrdVersion | undefined {
  return versions.find((v) => v.storage) ?? versions[0];
}

function toDefinition(
  group: string,
  names: CrdNames & { kind: string; plural: string },
  version: CrdVersion,
  schema: JsonSchema,
): CrdDefinition {
  return {
    group,
    version: version.name,
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    plural: names.plural,
    singular: names.singular ?? names.kind.toLowerCase(),
    shortNames: names.shortNames ?? [],
    statusSubresource: version.subresources?.status !== undefined,
    schema,
    printerColumns: version.additionalPrinterColumns ?? [],
  };
}
