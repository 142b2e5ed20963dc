// A structural-schema validator for CRD openAPIV3Schema: prunes unknown fields and nulls, applies
// defaults, then reports errors worded like kube-openapi. x-kubernetes-* keys other than
// preserve-unknown-fields are ignored.
import { copyJson } from './copy.js';
import { isPlainObject } from './objects.js';
import type { FieldError } from './field-errors.js';

export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

// Fields the API server owns and validates itself, never pruned from a root object.
const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Drops fields the schema does not declare and nulls it does not allow; fills defaults. */
export function pruneAndDefault(value: unknown, schema: JsonSchema, isRoot = false): void {
  const items = schema.items;
  if (Array.isArray(value) && items) value.forEach((item) => pruneAndDefault(item, items));
  if (isPlainObject(value) && !schema['x-kubernetes-preserve-unknown-fields'])
    pruneObject(value, schema, isRoot);
}

function pruneObject(value: Record<string, unknown>, schema: JsonSchema, isRoot: boolean): void {
  for (const key of Object.keys(value)) {
    if (isRoot && ROOT_FIELDS.has(key)) continue;
    const child = childSchema(schema, key);
    if (!child || (value[key] === null && !child.nullable)) delete value[key];
    else pruneAndDefault(value[key], child);
  }
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (value[key] === undefined && child.default !== undefined)
      value[key] = copyJson(child.default);
  }
}

function childSchema(schema: JsonSchema, key: string): JsonSchema | undefined {
  const declared = schema.properties?.[key];
  if (declared) return declared;
  const extra = schema.additionalProperties;
  if (extra === true) return {};
  return isPlainObject(extra) ? extra : undefined;
}

/** Validates `value` at `path` (e.g. "spec") and returns every violation found. */
export function validateSchema(value: unknown, schema: JsonSchema, path: string): FieldError[] {
  if (value === null && schema.nullable) return [];
  const typeError = checkType(value, schema, path);
  if (typeError) return [typeError];
  return [
    ...checkEnum(value, schema, path),
    ...(typeof value === 'string' ? checkString(value, schema, path) : []),
    ...(typeof value === 'number' ? checkNumber(value, schema, path) : []),
    ...(Array.isArray(value) ? checkArray(value, schema, path) : []),
    ...(isPlainObject(value) ? checkObject(value, schema, path) : []),
  ];
}

/** Validates the fields of a root object, leaving apiVersion, kind and metadata to the server. */
export function validateRoot(obj: Record<string, unknown>, schema: JsonSchema): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of schema.required ?? []) {
    if (obj[key] === undefined) errors.push({ type: 'Required', field: key });
  }
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (ROOT_FIELDS.has(key) || obj[key] === undefined) continue;
    errors.push(...validateSchema(obj[key], child, key));
  }
  return errors;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function checkType(value: unknown, schema: JsonSchema, path: string): FieldError | undefined {
  if (!schema.type) return undefined;
  const actual = typeName(value);
  const ok = actual === schema.type || (schema.type === 'number' && actual === 'integer');
  if (ok) return undefined;
  const detail = `${path} in body must be of type ${schema.type}: "${actual}"`;
  return { type: 'Invalid', field: path, value: actual, detail };
}

function checkEnum(value: unknown, schema: JsonSchema, path: string): FieldError[] {
  if (!schema.enum || schema.enum.includes(value)) return [];
  return [{ type: 'NotSupported', field: path, value, supported: schema.enum }];
}

function checkString(value: string, schema: JsonSchema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const invalid = (detail: string): number =>
    errors.push({ type: 'Invalid', field: path, value, detail });
  if (schema.minLength !== undefined && value.length < schema.minLength) {
    invalid(`${path} in body should be at least ${schema.minLength} chars long`);
  }
  if (schema.maxLength !== undefined && value.length > schema.maxLength) {
    invalid(`${path} in body should be at most ${schema.maxLength} chars long`);
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
    invalid(`${path} in body should match '${schema.pattern}'`);
  }
  return errors;
}

function checkNumber(value: number, schema: JsonSchema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.minimum !== undefined && value < schema.minimum) {
    const detail = `${path} in body should be greater than or equal to ${schema.minimum}`;
    errors.push({ type: 'Invalid', field: path, value, detail });
  }
  if (schema.maximum !== undefined && value > schema.maximum) {
    const detail = `${path} in body should be less than or equal to ${schema.maximum}`;
    errors.push({ type: 'Invalid', field: path, value, detail });
  }
  return errors;
}

function checkArray(value: unknown[], schema: JsonSchema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const count = value.length;
  if (schema.minItems !== undefined && count < schema.minItems) {
    const detail = `${path} in body should have at least ${schema.minItems} items`;
    errors.push({ type: 'Invalid', field: path, value: count, detail });
  }
  if (schema.maxItems !== undefined && count > schema.maxItems) {
    const detail = `${path} in body should have at most ${schema.maxItems} items`;
    errors.push({ type: 'Invalid', field: path, value: count, detail });
  }
  const items = schema.items;
  if (items)
    value.forEach((item, i) => errors.push(...validateSchema(item, items, `${path}[${i}]`)));
  return errors;
}

function checkObject(
  value: Record<string, unknown>,
  schema: JsonSchema,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of schema.required ?? []) {
    if (value[key] === undefined) errors.push({ type: 'Required', field: `${path}.${key}` });
  }
  for (const [key, child] of Object.entries(value)) {
    const childSchemaFor = childSchema(schema, key);
    if (childSchemaFor) errors.push(...validateSchema(child, childSchemaFor, `${path}.${key}`));
  }
  return errors;
}
