// A custom resource's Table: its CRD's additionalPrinterColumns evaluated the way
// apiextensions-apiserver's tableconvertor does: Name first, then each column's JSONPath, of
// which only the first result is printed.
import { JSONPath } from 'jsonpath-plus';
import type { PrinterColumn } from './crd.js';
import { ageOf } from './human-duration.js';
import type { KubeObject } from './objects.js';
import { isPlainObject } from './objects.js';
import { column, CREATION_TIMESTAMP_DESCRIPTION, NAME_COLUMN } from './table-columns.js';
import type { Printer } from './table-columns.js';

/** apiextensions-apiserver serves this column when a CRD version declares none. */
const DEFAULT_COLUMNS: PrinterColumn[] = [
  {
    name: 'Age',
    type: 'date',
    description: CREATION_TIMESTAMP_DESCRIPTION,
    jsonPath: '.metadata.creationTimestamp',
  },
];

export function crdPrinter(declared: PrinterColumn[]): Printer {
  const columns = declared.length > 0 ? declared : DEFAULT_COLUMNS;
  return {
    columns: [
      NAME_COLUMN,
      ...columns.map((each) =>
        column(
          each.name,
          each.type,
          each.description ||
            `Custom resource definition column (in JSONPath format): ${each.jsonPath}`,
          { format: each.format ?? '', priority: each.priority ?? 0 },
        ),
      ),
    ],
    row: (obj, now) => ({
      cells: [obj.metadata.name, ...columns.map((each) => cellOf(each, obj, now))],
    }),
  };
}

/** The first value the column's JSONPath finds, missing keys allowed; undefined when none. */
export function firstResult(jsonPath: string, obj: KubeObject): unknown {
  const results = JSONPath<unknown[]>({ path: `$${jsonPath}`, json: obj, wrap: true });
  return results[0];
}

function cellOf(each: PrinterColumn, obj: KubeObject, now: number): unknown {
  const value = firstResult(each.jsonPath, obj);
  if (value === undefined || value === null) return null;
  if (each.type === 'string') return printed(value);
  return typedCell(each.type, value, now);
}

/** A string column: text as it is, numbers and booleans in their plain form, the rest as JSON. */
function printed(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(sortedKeys(value));
}

/** Go's encoding/json writes a map's keys in order. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys(value[key])]),
  );
}

/** tableconvertor's cellForJSONValue: a value of another type than the column's is no cell. */
function typedCell(type: string, value: unknown, now: number): unknown {
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? ageOf(value, now) : null;
    default:
      return null;
  }
}
