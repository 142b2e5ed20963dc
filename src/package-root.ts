// Files that ship beside the code (package.json, the chart's CRD) are found from the package root,
// whatever the layout of the running code: src/ under tsx or vitest, the bundle in dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding package.json, found by walking up from this module. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the package root (no package.json above)');
    dir = parent;
  }
  return dir;
}

let version: string | undefined;

/** The version in package.json, read once. */
export function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
  ).version;
  return version;
}
