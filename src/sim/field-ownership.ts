// Field ownership as the API server's field manager keeps it (structured-merge-diff): an apply
// owns exactly the fields it applied and meets a 409 (one cause per field) where it would change
// a field another manager owns, unless forced; a create, update or non-apply patch (operation
// Update) takes the fields it sets or changes from everyone else, without a conflict.
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from './api-errors.js';
import { isPlainObject } from './objects.js';

/** The fields the field manager strips (stripmeta.go): identity and server-set metadata. */
const UNOWNED = new Set(
  [
    'apiVersion',
    'kind',
    'metadata.name',
    'metadata.namespace',
    'metadata.uid',
    'metadata.resourceVersion',
    'metadata.generation',
    'metadata.creationTimestamp',
    'metadata.deletionTimestamp',
    'metadata.deletionGracePeriodSeconds',
    'metadata.managedFields',
    'metadata.selfLink',
  ].map((path) => `.${path}`),
);

/** A field: its path segments (a label key may hold dots) and how the API server prints it. */
interface Leaf {
  segments: string[];
  value: unknown;
}

/** `.metadata.labels.app`: the API server's notation, also the key fields are owned under. */
function fieldName(segments: string[]): string {
  return segments.map((segment) => `.${segment}`).join('');
}

/**
 * Leaf fields of an object, by the API server's notation; lists are atomic, as in a CRD without
 * list types. Keys with dots stay distinct from nested fields through their segments.
 */
export function leafFields(config: unknown): Map<string, Leaf> {
  const leaves = new Map<string, Leaf>();
  const pending: Array<[string[], unknown]> = [[[], config]];
  while (pending.length > 0) {
    const [segments, value] = pending.pop()!;
    const name = fieldName(segments);
    if (UNOWNED.has(name)) continue;
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      for (const [key, child] of Object.entries(value)) pending.push([[...segments, key], child]);
    } else if (segments.length > 0) {
      leaves.set(escaped(segments), { segments, value });
    }
  }
  return leaves;
}

/** An unambiguous key per field (`.a.b` as a key "a.b" and as two levels differ). */
function escaped(segments: string[]): string {
  return JSON.stringify(segments);
}

function valueAt(obj: unknown, segments: string[]): unknown {
  let value: unknown = obj;
  for (const key of segments) {
    if (!isPlainObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

/** Equal as JSON values: the order of an object's keys does not matter, a list's order does. */
function sameValue(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}

/** Fields by key, what an object (or part of one) holds. */
export type FieldSet = Map<string, Leaf>;

/** Field ownership per object (`type/namespace/name/subresource`) and field manager. */
export class FieldOwnership {
  private readonly owners = new Map<string, Map<string, Set<string>>>();

  /**
   * The 409 an apply by `manager` meets: a field it sets to a value other than the live one while
   * another manager owns it. Applying a field to its current value shares ownership instead.
   */
  conflicts(
    object: string,
    manager: string,
    apply: { config: Record<string, unknown>; live: unknown },
  ): ApiError | undefined {
    const { config, live } = apply;
    const groupVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
    const causes: Array<{ reason: string; message: string; field: string }> = [];
    for (const [key, leaf] of leafFields(config)) {
      if (sameValue(valueAt(live, leaf.segments), leaf.value)) continue;
      for (const [other, fields] of this.owners.get(object) ?? []) {
        if (other === manager || !fields.has(key)) continue;
        causes.push({
          reason: 'FieldManagerConflict',
          message: `conflict with "${other}" using ${groupVersion}`,
          field: fieldName(leaf.segments),
        });
      }
    }
    if (causes.length === 0) return undefined;
    const lines = causes.map((cause) => `- ${cause.message}: ${cause.field}`).join('\n');
    const count = `${causes.length} conflict${causes.length === 1 ? '' : 's'}`;
    return new ApiError(
      409,
      'Conflict',
      `Apply failed with ${count}: ${causes.length === 1 ? `${causes[0]!.message}: ${causes[0]!.field}` : `\n${lines}`}`,
      { causes },
    );
  }

  /** Whether a manager other than `manager` owns the field at `segments`. */
  ownedByOther(object: string, manager: string, segments: string[]): boolean {
    const key = escaped(segments);
    for (const [other, fields] of this.owners.get(object) ?? []) {
      if (other !== manager && fields.has(key)) return true;
    }
    return false;
  }

  /** `manager` now owns exactly the fields it applied; with force, it takes them from the others. */
  recordApply(object: string, manager: string, config: unknown, force: boolean): void {
    const managers = this.owners.get(object) ?? new Map<string, Set<string>>();
    const fields = new Set(leafFields(config).keys());
    const others = [...managers].filter(([other]) => other !== manager);
    if (force) for (const [, owned] of others) fields.forEach((field) => owned.delete(field));
    managers.set(manager, fields);
    this.owners.set(object, managers);
  }

  /**
   * An Update by `manager` from `before` to `after` (field sets of the written part): it owns
   * what it owned plus what it added or changed, less what it removed; the others lose what it
   * changed or removed (an Update is never refused for ownership).
   */
  recordUpdate(object: string, manager: string, before: FieldSet, after: FieldSet): void {
    const changed = [...after].filter(([key, leaf]) => {
      const was = before.get(key);
      return was === undefined || !sameValue(was.value, leaf.value);
    });
    const removed = [...before.keys()].filter((key) => !after.has(key));
    if (changed.length === 0 && removed.length === 0) return;
    const managers = this.owners.get(object) ?? new Map<string, Set<string>>();
    for (const [, owned] of managers) {
      for (const [key] of changed) owned.delete(key);
      for (const key of removed) owned.delete(key);
    }
    const mine = managers.get(manager) ?? new Set<string>();
    for (const [key] of changed) mine.add(key);
    managers.set(manager, mine);
    for (const [name, owned] of [...managers]) if (owned.size === 0) managers.delete(name);
    if (managers.size === 0) this.owners.delete(object);
    else this.owners.set(object, managers);
  }

  /** Forgets a deleted object: `prefix` is its key up to the subresource (`type/ns/name/`). */
  forget(prefix: string): void {
    this.owners.delete(prefix);
    this.owners.delete(`${prefix}status`);
  }
}
