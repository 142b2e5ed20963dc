// The write path shared by every resource: defaults, status-subresource split, generation,
// optimistic concurrency, validation, and no-op detection (an unchanged object keeps its
// resourceVersion and emits no watch event, as on a real cluster).
import { copyJson } from './copy.js';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  alreadyExists,
  badRequest,
  conflict,
  notFound,
  qualifiedResource,
  STALE_OBJECT,
} from './api-errors.js';
import { invalidError } from './field-errors.js';
import type { FieldError } from './field-errors.js';
import type { KubeObject, ObjectMetaInput } from './objects.js';
import { rfc3339 } from './objects.js';
import {
  asWritable,
  checkName,
  checkNamespace,
  checkPreconditions,
  SERVER_META_FIELDS,
} from './object-meta.js';
import type { Preconditions, WritableObject } from './object-meta.js';
import type { ResourceType } from './resources.js';
import { randomSuffix } from './rng.js';
import type { ObjectStore } from './store.js';

export interface UpdateOptions {
  subresource?: string;
  /** PUT on a custom resource must name the resourceVersion it replaces. */
  requireResourceVersion?: boolean;
  /** dryRun=All: validate and answer as if written, but change nothing. */
  dryRun?: boolean;
}

export interface RemoveOptions {
  preconditions?: Preconditions;
  dryRun?: boolean;
}

export class ObjectWriter {
  constructor(
    private readonly store: ObjectStore,
    private readonly random: () => number,
  ) {}

  create(type: ResourceType, namespace: string, body: unknown, dryRun = false): KubeObject {
    const obj = asWritable(type, body);
    checkNamespace(obj.metadata, namespace);
    const name = obj.metadata.name ?? this.generatedName(obj.metadata);
    if (!name) {
      const error: FieldError = {
        type: 'Required',
        field: 'metadata.name',
        detail: 'name or generateName is required',
      };
      throw invalidError({ kind: type.kind, group: type.group, name: '' }, [error]);
    }
    checkName(type, name);
    if (this.store.get(type.storeKey, namespace, name)) {
      throw alreadyExists(qualifiedResource(type.plural, type.group), name);
    }
    for (const field of SERVER_META_FIELDS) delete obj.metadata[field];
    Object.assign(obj.metadata, {
      name,
      namespace,
      uid: randomUUID(),
      creationTimestamp: rfc3339(),
      ...(type.tracksGeneration ? { generation: 1 } : {}),
    });
    if (type.statusSubresource) delete obj.status;
    const ready = this.validated(type, obj as KubeObject);
    return dryRun ? ready : this.store.create(type.storeKey, ready);
  }

  update(
    type: ResourceType,
    current: KubeObject,
    body: unknown,
    options: UpdateOptions = {},
  ): KubeObject {
    const desired = asWritable(type, body);
    this.checkIdentity(type, current, desired.metadata, options);
    const next = this.compose(type, current, desired, options.subresource === 'status');
    const ready = this.validated(type, next);
    if (type.tracksGeneration && !isDeepStrictEqual(current.spec, ready.spec)) {
      ready.metadata.generation = (current.metadata.generation ?? 0) + 1;
    }
    if (options.dryRun || isDeepStrictEqual(ready, current)) return ready;
    return this.store.update(type.storeKey, ready);
  }

  remove(
    type: ResourceType,
    namespace: string,
    name: string,
    options: RemoveOptions = {},
  ): KubeObject {
    const current = this.store.get(type.storeKey, namespace, name);
    if (!current) throw notFound(qualifiedResource(type.plural, type.group), name);
    checkPreconditions(type, current, options.preconditions ?? {});
    if (options.dryRun) return current;
    return this.store.remove(type.storeKey, namespace, name) ?? current;
  }

  private checkIdentity(
    type: ResourceType,
    current: KubeObject,
    meta: ObjectMetaInput,
    options: UpdateOptions,
  ): void {
    const { name, namespace, resourceVersion } = current.metadata;
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(
        `the name of the object (${meta.name}) does not match the name on the URL (${name})`,
      );
    }
    checkNamespace(meta, namespace);
    const sent = meta.resourceVersion;
    if (options.requireResourceVersion && (sent === undefined || sent === '')) {
      throw invalidError({ kind: type.kind, group: type.group, name }, [
        {
          type: 'Invalid',
          field: 'metadata.resourceVersion',
          value: 0,
          detail: 'must be specified for an update',
        },
      ]);
    }
    if (sent !== undefined && sent !== '' && sent !== resourceVersion) {
      throw conflict(qualifiedResource(type.plural, type.group), name, STALE_OBJECT);
    }
  }

  /** The stored object after a write: user fields from `desired`, server fields from `current`. */
  private compose(
    type: ResourceType,
    current: KubeObject,
    desired: WritableObject,
    statusWrite: boolean,
  ): KubeObject {
    if (statusWrite) {
      const next = copyJson(current);
      if (desired.status === undefined) delete next.status;
      else next.status = desired.status;
      return next;
    }
    const meta: Record<string, unknown> = { ...desired.metadata };
    for (const field of SERVER_META_FIELDS) {
      if (current.metadata[field] === undefined) delete meta[field];
      else meta[field] = current.metadata[field];
    }
    const next = { ...desired, metadata: meta } as KubeObject;
    if (type.statusSubresource) {
      if (current.status === undefined) delete next.status;
      else next.status = current.status;
    }
    return next;
  }

  private validated(type: ResourceType, obj: KubeObject): KubeObject {
    type.normalize?.(obj);
    const errors = type.validate?.(obj) ?? [];
    if (errors.length > 0) {
      throw invalidError({ kind: type.kind, group: type.group, name: obj.metadata.name }, errors);
    }
    return obj;
  }

  private generatedName(meta: ObjectMetaInput): string | undefined {
    if (!meta.generateName) return undefined;
    return `${meta.generateName}${randomSuffix(this.random)}`;
  }
}
