// The pieces every Table printer is made of: column definitions as metav1 spells them, and the
// printers of the kinds that need no more than their metadata.
import { ageOf } from './human-duration.js';
import type { KubeObject } from './objects.js';

/** A metav1.TableColumnDefinition; every field is serialized, empty ones too. */
export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface RowCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** The cells of one object's row, in column order; null prints as an empty cell. */
export interface PrintedRow {
  cells: unknown[];
  conditions?: RowCondition[];
}

/**
 * How a kind prints. The server sends every column, priority > 0 ones too (the API server's
 * printers run with `Wide: true`); `kubectl get` shows those only with `-o wide`.
 */
export interface Printer {
  columns: TableColumn[];
  row(obj: KubeObject, now: number): PrintedRow;
}

export const NAME_COLUMN: TableColumn = column(
  'Name',
  'string',
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of a name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  { format: 'name' },
);

export const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export function column(
  name: string,
  type: string,
  description: string,
  extra: { format?: string; priority?: number } = {},
): TableColumn {
  return { name, type, format: extra.format ?? '', description, priority: extra.priority ?? 0 };
}

/**
 * The API server's default for a kind without a printer of its own (apiserver registry/rest
 * `defaultTableConvertor`): the name and the creation time as an RFC 3339 string.
 */
export const defaultPrinter: Printer = {
  columns: [NAME_COLUMN, column('Created At', 'date', CREATION_TIMESTAMP_DESCRIPTION)],
  row: (obj) => ({ cells: [obj.metadata.name, obj.metadata.creationTimestamp] }),
};

/** kubectl's printNamespace: NAME, STATUS, AGE. */
export const namespacePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'The status of the namespace'),
    column('Age', 'string', CREATION_TIMESTAMP_DESCRIPTION),
  ],
  row: (obj, now) => ({
    cells: [
      obj.metadata.name,
      (obj.status as { phase?: string } | undefined)?.phase ?? '',
      ageOf(obj.metadata.creationTimestamp, now),
    ],
  }),
};
