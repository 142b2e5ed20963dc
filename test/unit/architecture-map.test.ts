// ARCHITECTURE.md's repo map names every file of src/ (the simulator, src/sim/, as a whole) and
// nothing that is gone; and the HTTP layer is a leaf: only the roles and the executable import it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
/** The one folder the map may sum up without naming its files. */
const WHOLE = 'src/sim/';
const INGRESS = 'src/ingress/';
/** Who may import the HTTP layer: itself, the roles that serve it, and the executable's entry. */
const MAY_IMPORT_INGRESS = [INGRESS, 'src/runtime/', 'src/main.ts', 'src/cli.ts', 'src/cli/'];

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}${entry.name}`;
    return entry.isDirectory() ? filesUnder(`${path}/`) : [path];
  });
}

/**
 * The files the map names: each bullet `- \`name\`:` under a `### \`src/folder/\`` heading is
 * `src/folder/name`; a `src/...` path written whole anywhere counts too. A section of src/sim/
 * stands for the whole folder.
 */
function namedFiles(markdown: string): { named: Set<string>; whole: boolean } {
  const named = new Set<string>();
  let folder: string | undefined;
  let whole = false;
  for (const line of markdown.split('\n')) {
    if (/^#{2,3} /.test(line)) folder = /^### `(src\/[^`]*)`/.exec(line)?.[1];
    if (folder === WHOLE) whole = true;
    const bullet = /^- `([^`]+)`:/.exec(line);
    if (folder !== undefined && bullet) named.add(`${folder}${bullet[1]}`);
  }
  for (const [path] of markdown.matchAll(/\bsrc\/[\w./-]+\.ts\b/g)) named.add(path);
  return { named, whole };
}

/** Files of src/ the map does not name, and names of the map that are no file. */
function mapGaps(files: string[], markdown: string): { unlisted: string[]; gone: string[] } {
  const { named, whole } = namedFiles(markdown);
  const present = new Set(files);
  return {
    unlisted: files.filter((file) => !named.has(file) && !(whole && file.startsWith(WHOLE))),
    gone: [...named].filter((name) => !present.has(name)),
  };
}

/** The modules of the HTTP layer that `file` imports, when it is not one that may. */
function ingressImports(file: string, source: string): string[] {
  if (MAY_IMPORT_INGRESS.some((allowed) => file.startsWith(allowed))) return [];
  const specifiers = [...source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"]+)['"]/g)];
  return specifiers
    .map(([, specifier]) => specifier!)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(root, resolve(root, dirname(file), specifier)))
    .filter((target) => target.startsWith(INGRESS));
}

describe('the repo map in ARCHITECTURE.md', () => {
  const markdown = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');

  it('names every file of src/, and only files that exist', () => {
    expect(mapGaps(filesUnder('src/'), markdown)).toEqual({ unlisted: [], gone: [] });
  });

  it('finds a file left out and a file that is gone', () => {
    const map =
      '### `src/sim/`: the simulator\n\n### `src/a/`: a\n\n- `b.ts`: b.\n- `gone.ts`: x.\n';
    const files = ['src/a/b.ts', 'src/a/new.ts', 'src/sim/any.ts'];
    expect(mapGaps(files, `${map}\nSee \`src/a/old.ts\`.\n`)).toEqual({
      unlisted: ['src/a/new.ts'],
      gone: ['src/a/gone.ts', 'src/a/old.ts'],
    });
  });
});

describe('the HTTP layer', () => {
  it('is imported only by itself, the roles and the executable', () => {
    const offenders = filesUnder('src/').flatMap((file) =>
      ingressImports(file, readFileSync(join(root, file), 'utf8')).map((to) => `${file} -> ${to}`),
    );
    expect(offenders).toEqual([]);
  });

  it('finds an import of it from below, static or dynamic', () => {
    const source = `import type { AppDeps } from '../ingress/deps.js';\nawait import('../ingress/app.js');\n`;
    expect(ingressImports('src/controller/start.ts', source)).toEqual([
      'src/ingress/deps.js',
      'src/ingress/app.js',
    ]);
    expect(ingressImports('src/runtime/serve.ts', source)).toEqual([]);
    expect(ingressImports('src/ingest/ingest.ts', `import { x } from './ingress.js';`)).toEqual([]);
  });
});
