// fieldSelector support: `path=value`, `path==value`, `path!=value`, comma = AND, where path is a
// dotted field path such as metadata.name or status.phase.
import { badRequest } from './api-errors.js';
import { isPlainObject } from './objects.js';

interface FieldRequirement {
  path: string[];
  value: string;
  negate: boolean;
}

export type FieldSelector = FieldRequirement[];

const FIELD_RE = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/;

export function parseFieldSelector(text: string | null | undefined): FieldSelector {
  if (!text || !text.trim()) return [];
  return text.split(',').map((part) => {
    const m = FIELD_RE.exec(part.trim());
    if (!m?.[1]) throw badRequest(`invalid field selector: '${text}'`);
    return { path: m[1].split('.'), value: (m[3] ?? '').trim(), negate: m[2] === '!=' };
  });
}

export function matchesFields(selector: FieldSelector, obj: unknown): boolean {
  return selector.every((req) => (fieldValue(obj, req.path) === req.value) !== req.negate);
}

function fieldValue(obj: unknown, path: string[]): string {
  let node = obj;
  for (const segment of path) {
    if (!isPlainObject(node)) return '';
    node = node[segment];
  }
  return typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean'
    ? String(node)
    : '';
}
