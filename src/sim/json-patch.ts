// RFC 6902 JSON patch: add, remove, replace, move, copy, test.
import { copyJson } from './copy.js';
import { isDeepStrictEqual } from 'node:util';
import { ApiError, badRequest } from './api-errors.js';
import { isPlainObject } from './objects.js';

interface Operation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

type Container = Record<string, unknown> | unknown[];

function patchFailure(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

/** Applies the operations to a copy of `doc`; a failed operation rejects the whole patch. */
export function applyJsonPatch(doc: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw badRequest('json patch must be an array of operations');
  let result = copyJson(doc);
  for (const raw of operations) {
    if (!isPlainObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw badRequest(`invalid json patch operation: ${JSON.stringify(raw)}`);
    }
    result = applyOperation(result, raw as unknown as Operation);
  }
  return result;
}

function applyOperation(doc: unknown, op: Operation): unknown {
  switch (op.op) {
    case 'add':
      return add(doc, op.path, copyJson(op.value));
    case 'remove':
      return remove(doc, op.path);
    case 'replace':
      return add(remove(doc, op.path), op.path, copyJson(op.value));
    case 'move': {
      const moved = read(doc, op.from ?? '');
      return add(remove(doc, op.from ?? ''), op.path, moved);
    }
    case 'copy':
      return add(doc, op.path, copyJson(read(doc, op.from ?? '')));
    case 'test':
      if (!isDeepStrictEqual(read(doc, op.path), op.value))
        throw patchFailure(`testing value ${op.path} failed: test failed`);
      return doc;
    default:
      throw badRequest(`unexpected json patch operation "${op.op}"`);
  }
}

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw badRequest(`invalid json pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function read(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const token of tokens(pointer)) {
    node = childOf(node, token, pointer);
  }
  return node;
}

function childOf(node: unknown, token: string, pointer: string): unknown {
  let value: unknown;
  if (Array.isArray(node)) value = (node as unknown[])[Number(token)];
  else if (isPlainObject(node)) value = node[token];
  if (value === undefined) throw patchFailure(`doc is missing path: "${pointer}": missing value`);
  return value;
}

/** The container holding the pointer's last token, and that token. */
function parentOf(doc: unknown, pointer: string): [Container, string] {
  const path = tokens(pointer);
  const last = path.pop();
  if (last === undefined) throw patchFailure('cannot address the document root');
  const parent = read(doc, path.length ? `/${path.map(escapeToken).join('/')}` : '');
  if (!Array.isArray(parent) && !isPlainObject(parent))
    throw patchFailure(`doc is missing path: "${pointer}"`);
  return [parent, last];
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function add(doc: unknown, pointer: string, value: unknown): unknown {
  if (pointer === '') return value;
  const [parent, token] = parentOf(doc, pointer);
  if (!Array.isArray(parent)) {
    parent[token] = value;
    return doc;
  }
  const index = token === '-' ? parent.length : Number(token);
  if (!Number.isInteger(index) || index < 0 || index > parent.length) {
    throw patchFailure(
      `add operation does not apply: index ${token} out of bounds for "${pointer}"`,
    );
  }
  parent.splice(index, 0, value);
  return doc;
}

function remove(doc: unknown, pointer: string): unknown {
  const [parent, token] = parentOf(doc, pointer);
  childOf(parent, token, pointer);
  if (Array.isArray(parent)) parent.splice(Number(token), 1);
  else delete parent[token];
  return doc;
}
