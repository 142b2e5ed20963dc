// Checks on the envelope of a written object: apiVersion, kind, name, namespace, preconditions.
import { copyJson } from './copy.js';
import { badRequest, conflict, qualifiedResource } from './api-errors.js';
import { invalidError } from './field-errors.js';
import type { KubeObject, ObjectMetaInput } from './objects.js';
import { isPlainObject } from './objects.js';
import { apiVersionOf } from './resources.js';
import type { ResourceType } from './resources.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** Fields only the server sets; what a client sends for them is ignored. */
export const SERVER_META_FIELDS = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
] as const;

/** An object as a client sent it: the server has not filled in its metadata yet. */
export interface WritableObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMetaInput;
  [key: string]: unknown;
}

/** The body as an object with metadata, apiVersion and kind checked against the route. */
export function asWritable(type: ResourceType, body: unknown): WritableObject {
  if (!isPlainObject(body)) throw badRequest('the body of the request was not a JSON object');
  const obj = copyJson(body) as WritableObject;
  const expected = apiVersionOf(type);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (obj.kind !== undefined && obj.kind !== type.kind) {
    throw badRequest(
      `the kind in the data (${String(obj.kind)}) does not match the expected kind (${type.kind})`,
    );
  }
  obj.apiVersion = expected;
  obj.kind = type.kind;
  obj.metadata = isPlainObject(obj.metadata) ? obj.metadata : {};
  return obj;
}

export function checkNamespace(meta: ObjectMetaInput, namespace: string): void {
  if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
    throw badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
}

export function checkName(type: ResourceType, name: string): void {
  if (name.length <= 253 && DNS_SUBDOMAIN.test(name)) return;
  throw invalidError({ kind: type.kind, group: type.group, name }, [
    {
      type: 'Invalid',
      field: 'metadata.name',
      value: name,
      detail:
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    },
  ]);
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** Reads DeleteOptions.preconditions from a DELETE body (or an Eviction's deleteOptions). */
export function preconditionsOf(options: unknown): Preconditions {
  const pre =
    isPlainObject(options) && isPlainObject(options.preconditions) ? options.preconditions : {};
  return {
    uid: typeof pre.uid === 'string' ? pre.uid : undefined,
    resourceVersion: typeof pre.resourceVersion === 'string' ? pre.resourceVersion : undefined,
  };
}

/** A failed precondition is a 409 Conflict worded like the API server's. */
export function checkPreconditions(
  type: ResourceType,
  current: KubeObject,
  pre: Preconditions,
): void {
  const meta = current.metadata;
  const resource = qualifiedResource(type.plural, type.group);
  if (pre.uid !== undefined && pre.uid !== meta.uid) {
    const why = `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`;
    throw conflict(resource, meta.name, why);
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    const why = `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`;
    throw conflict(resource, meta.name, why);
  }
}
