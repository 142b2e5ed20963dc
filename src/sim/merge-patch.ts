// RFC 7386 merge patch, plus the field-removal half of server-side apply.
import { copyJson } from './copy.js';
import { isPlainObject } from './objects.js';

/** Applies a JSON merge patch: objects merge recursively, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return copyJson(patch);
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * Server-side apply owns the fields a manager applied: a field it applied last time and omits now
 * is removed, unless another manager owns it too (`kept`, by path segments). (Lists are atomic, as
 * in a CRD without list-type markers, so they simply replace.)
 */
export function dropUnappliedFields(
  target: Record<string, unknown>,
  applied: { previous: unknown; next: unknown },
  kept: (segments: string[]) => boolean,
  at: string[] = [],
): void {
  const { previous, next } = applied;
  if (!isPlainObject(previous)) return;
  const nextFields = isPlainObject(next) ? next : {};
  for (const [key, before] of Object.entries(previous)) {
    const after = nextFields[key];
    const current = target[key];
    const path = [...at, key];
    if (isNestedObject(before) && isPlainObject(current)) {
      dropUnappliedFields(current, { previous: before, next: after ?? {} }, kept, path);
      if (after === undefined && Object.keys(current).length === 0) delete target[key];
    } else if (after === undefined && !kept(path)) {
      delete target[key];
    }
  }
}

function isNestedObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).length > 0;
}
