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
 * is removed. (Lists are atomic, as in a CRD without list-type markers, so they simply replace.)
 */
export function dropUnappliedFields(
  target: Record<string, unknown>,
  previous: unknown,
  next: unknown,
): void {
  if (!isPlainObject(previous)) return;
  for (const [key, before] of Object.entries(previous)) {
    const after = isPlainObject(next) ? next[key] : undefined;
    const current = target[key];
    if (after === undefined) delete target[key];
    else if (isPlainObject(before) && isPlainObject(current))
      dropUnappliedFields(current, before, after);
  }
}
