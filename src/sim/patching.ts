// PATCH in its four flavours, and the field ownership of every write. Server-side apply remembers
// what each field manager applied so that a field it stops applying is removed, and creates the
// object when it does not exist; the other writes (operation Update) own the fields they set.
import { copyJson } from './copy.js';
import { ApiError, badRequest, notFound, qualifiedResource, unprocessable } from './api-errors.js';
import { APPLY_PATCH } from './http-io.js';
import { applyJsonPatch } from './json-patch.js';
import { dropUnappliedFields, mergePatch } from './merge-patch.js';
import type { KubeObject } from './objects.js';
import { isPlainObject } from './objects.js';
import type { ApiRequest, Reply } from './requests.js';
import { isDryRun } from './requests.js';
import type { ResourceType } from './resources.js';
import type { ObjectStore } from './store.js';
import type { ObjectWriter } from './writes.js';
import { FieldOwnership, leafFields, type FieldSet } from './field-ownership.js';

const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

export class Patcher {
  // Last configuration applied per object and field manager.
  private readonly applied = new Map<string, unknown>();
  // Which manager applied which field, for conflicts of applies without force.
  private readonly ownership = new FieldOwnership();

  constructor(
    private readonly store: ObjectStore,
    private readonly writer: ObjectWriter,
  ) {
    // However an object goes (a DELETE, a grace period ending, a controller), its fields go too.
    store.subscribe((event) => {
      if (event.type !== 'DELETED') return;
      const { namespace = '', name } = event.object.metadata;
      this.forgetObject(`${event.key}/${namespace}/${name}/`);
    });
  }

  patch(req: ApiRequest): Reply {
    const { type, namespace, contentType } = req;
    const name = req.path.name ?? '';
    const current = this.store.get(type.storeKey, namespace, name);
    if (contentType === APPLY_PATCH) return this.apply(req, current);
    if (!current) throw notFound(qualifiedResource(type.plural, type.group), name);
    const desired = patchedObject(type, current, contentType, req.body);
    const options = { subresource: req.path.subresource, dryRun: isDryRun(req.query) };
    const patched = this.writer.update(type, current, desired, options);
    this.recordUpdate(req, current, patched);
    return { status: 200, body: patched };
  }

  /**
   * A create, update or non-apply patch (operation Update) by the request's field manager: the
   * `fieldManager` parameter, else the User-Agent's product name, as the API server names it. It
   * takes the fields it set or changed; a dry run takes nothing.
   */
  recordUpdate(req: ApiRequest, before: KubeObject | undefined, after: KubeObject): void {
    if (isDryRun(req.query)) return;
    const manager = req.query.get('fieldManager') || managerFromUserAgent(req.userAgent);
    const { type, namespace } = req;
    const subresource = req.path.subresource;
    const object = `${type.storeKey}/${namespace}/${after.metadata.name}/${subresource ?? ''}`;
    const fields = (obj: unknown): FieldSet => writtenFields(type, subresource, obj);
    this.ownership.recordUpdate(object, manager, fields(before), fields(after));
  }

  /** Forgets what was applied to an object once it is deleted. */
  forget(type: ResourceType, namespace: string, name: string): void {
    this.forgetObject(`${type.storeKey}/${namespace}/${name}/`);
  }

  private forgetObject(prefix: string): void {
    for (const key of [...this.applied.keys()])
      if (key.startsWith(prefix)) this.applied.delete(key);
    this.ownership.forget(prefix);
  }

  private apply(req: ApiRequest, current: KubeObject | undefined): Reply {
    const { type, namespace, body, query } = req;
    const name = req.path.name ?? '';
    const manager = query.get('fieldManager');
    if (!manager) {
      throw unprocessable(
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      );
    }
    if (!isPlainObject(body) || !body.apiVersion || !body.kind) {
      throw badRequest('invalid object type: an apply patch must set apiVersion and kind');
    }
    const dryRun = isDryRun(query);
    const object = `${type.storeKey}/${namespace}/${name}/${req.path.subresource ?? ''}`;
    const key = `${object}/${manager}`;
    const force = query.get('force') === 'true';
    const config = {
      ...body,
      metadata: { ...(isPlainObject(body.metadata) ? body.metadata : {}), name },
    };
    if (!current) {
      if (req.path.subresource) throw notFound(qualifiedResource(type.plural, type.group), name);
      const created = this.writer.create(type, namespace, config, dryRun);
      if (!dryRun) this.remember(object, manager, config, force);
      return { status: 201, body: created };
    }
    this.checkConflicts(object, manager, { config, live: current }, force);
    const desired = mergePatch(current, config) as Record<string, unknown>;
    const shared = (segments: string[]): boolean =>
      this.ownership.ownedByOther(object, manager, segments);
    dropUnappliedFields(desired, { previous: this.applied.get(key), next: config }, shared);
    const updated = this.writer.update(type, current, desired, {
      subresource: req.path.subresource,
      dryRun,
    });
    if (!dryRun) this.remember(object, manager, config, force);
    return { status: 200, body: updated };
  }

  /** An apply without force that changes fields another manager owns is refused (409). */
  private checkConflicts(
    object: string,
    manager: string,
    apply: { config: Record<string, unknown>; live: KubeObject },
    force: boolean,
  ): void {
    const conflict = force ? undefined : this.ownership.conflicts(object, manager, apply);
    if (conflict) throw conflict;
  }

  private remember(object: string, manager: string, config: object, force: boolean): void {
    this.applied.set(`${object}/${manager}`, copyJson(config));
    this.ownership.recordApply(object, manager, config, force);
  }
}

/** The longest field manager name (apimachinery's FieldManagerMaxLength). */
const FIELD_MANAGER_MAX_LENGTH = 128;

/** `kubectl/v1.35.0 (linux/amd64) kubernetes/abc` → `kubectl`: printable, at most 128 bytes. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  let manager = '';
  for (const char of (userAgent ?? '').split('/')[0]!) {
    if (!/\p{L}|\p{M}|\p{N}|\p{P}|\p{S}| /u.test(char)) continue;
    if (Buffer.byteLength(manager + char) > FIELD_MANAGER_MAX_LENGTH) break;
    manager += char;
  }
  return manager;
}

/** The fields a write to `subresource` sets: status alone there, everything else on the main one. */
function writtenFields(
  type: ResourceType,
  subresource: string | undefined,
  obj: unknown,
): FieldSet {
  const all: FieldSet = obj === undefined ? new Map<string, never>() : leafFields(obj);
  if (subresource !== 'status' && !type.statusSubresource) return all;
  const inStatus = subresource === 'status';
  return new Map([...all].filter(([, leaf]) => (leaf.segments[0] === 'status') === inStatus));
}

function patchedObject(
  type: ResourceType,
  current: KubeObject,
  contentType: string,
  body: unknown,
): unknown {
  if (contentType === MERGE || (contentType === STRATEGIC && !type.custom)) {
    if (!isPlainObject(body)) throw badRequest('a merge patch must be a JSON object');
    return mergePatch(current, body);
  }
  if (contentType === JSON_PATCH) return applyJsonPatch(current, body);
  throw new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${JSON_PATCH}, ${MERGE}, ${APPLY_PATCH}${type.custom ? '' : `, ${STRATEGIC}`}`,
  );
}
