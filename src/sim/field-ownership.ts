// Server-side apply's field ownership: which field manager applied which field, and the
// conflicts an apply without force meets (409, one cause per field, as the API server answers).
import { ApiError } from './api-errors.js';
import { isPlainObject } from './objects.js';

/** The envelope fields every apply repeats: identity, not ownership. */
const IDENTITY = new Set(['.apiVersion', '.kind', '.metadata.name', '.metadata.namespace']);

/** Leaf fields of an applied configuration; lists are atomic, as in a CRD without list types. */
export function leafFields(config: unknown, path = ''): Map<string, unknown> {
  const leaves = new Map<string, unknown>();
  const pending: Array<[string, unknown]> = [[path, config]];
  while (pending.length > 0) {
    const [at, value] = pending.pop()!;
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      for (const [key, child] of Object.entries(value)) pending.push([`${at}.${key}`, child]);
    } else if (!IDENTITY.has(at) && at !== '') {
      leaves.set(at, value);
    }
  }
  return leaves;
}

function valueAt(obj: unknown, field: string): unknown {
  let value: unknown = obj;
  for (const key of field.slice(1).split('.')) {
    if (!isPlainObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

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
    for (const [field, value] of leafFields(config)) {
      if (sameValue(valueAt(live, field), value)) continue;
      for (const [other, fields] of this.owners.get(object) ?? []) {
        if (other === manager || !fields.has(field)) continue;
        causes.push({
          reason: 'FieldManagerConflict',
          message: `conflict with "${other}" using ${groupVersion}`,
          field,
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

  /** `manager` now owns exactly the fields it applied; with force, it takes them from the others. */
  record(object: string, manager: string, config: unknown, force: boolean): void {
    const managers = this.owners.get(object) ?? new Map<string, Set<string>>();
    const fields = new Set(leafFields(config).keys());
    const others = [...managers].filter(([other]) => other !== manager);
    if (force) for (const [, owned] of others) fields.forEach((field) => owned.delete(field));
    managers.set(manager, fields);
    this.owners.set(object, managers);
  }

  /** Forgets every object whose key starts with `prefix` (deleted objects). */
  forget(prefix: string): void {
    for (const key of [...this.owners.keys()]) if (key.startsWith(prefix)) this.owners.delete(key);
  }
}
