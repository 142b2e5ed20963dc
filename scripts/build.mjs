// `npm run build`: dist/cli.js, the `pod-bouncer` executable, bundled with its dependencies by
// esbuild. Loading one file per module (about 2,600 for `serve`) cost start-up more than running
// them; bundled, a command loads a few files. The dynamic imports stay split points (chunks under
// dist/chunks/), so a command still loads only what it uses: client-node only once needed, the
// dashboard only when it is on. Type errors are tsc's business (`npm run typecheck`, and the
// `build` script runs it first).
//
// Source maps sit beside each file: `NODE_OPTIONS=--enable-source-maps` gives stack traces in
// src/*.ts lines (they are off by default: Node then reads every map as a module loads).
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';

await rm('dist', { recursive: true, force: true });
await build({
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  sourcemap: 'linked',
  // Without whitespace, comments go too. V8 keeps every loaded file's source text in the heap, and
  // a single non-Latin-1 character in a comment (bundled dependencies have a few) makes it keep a
  // whole chunk two bytes a character: the worker held 21 MB of source, now about 7 MB. Licence
  // comments move to a .LEGAL.txt beside their chunk. Names stay, and the maps give src/ lines.
  minifyWhitespace: true,
  legalComments: 'external',
  // Bundled CommonJS modules call require(): give every output file one, rooted where it lies.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  external: [
    // A native addon that finds its binary from its own directory; msgpackr falls back to plain
    // JS without it, so a bundled copy would silently run slower.
    'msgpackr-extract',
  ],
  logLevel: 'warning',
});
