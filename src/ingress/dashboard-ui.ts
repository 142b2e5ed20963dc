import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_PATH } from './dashboard-path.js';
import { UI_EDITS, type UiEdit } from './dashboard-ui-edits.js';

/**
 * bull-board UI's package directory: the copy @bull-board/api resolves for itself, so that the
 * files edited here are the files it serves (passed to it as `uiBasePath`).
 */
export function bullBoardUiPath(): string {
  const api = createRequire(import.meta.url).resolve('@bull-board/api');
  return dirname(createRequire(api).resolve('@bull-board/ui/package.json'));
}

export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

export type UiEditOutcome =
  { readonly edited: ReadonlyMap<string, string> } | { readonly unmatched: readonly UiEdit[] };

/**
 * Every edit applied to its file's text, or none when any needle is not there exactly once (a
 * file missing counts as a needle not found): half an edited UI would be harder to reason about
 * than the plain one, whose refused buttons the guard answers with 403.
 */
export function applyUiEdits(
  files: ReadonlyMap<string, string | undefined>,
  edits: readonly UiEdit[],
): UiEditOutcome {
  const unmatched = edits.filter(
    (edit) => occurrences(files.get(edit.file) ?? '', edit.needle) !== 1,
  );
  if (unmatched.length > 0) return { unmatched };
  const edited = new Map<string, string>();
  for (const edit of edits) {
    const text = edited.get(edit.file) ?? files.get(edit.file) ?? '';
    // A function, so that `$` in a replacement is never read as a pattern.
    edited.set(
      edit.file,
      text.replace(edit.needle, () => edit.replacement),
    );
  }
  return { edited };
}

export interface EditedAsset {
  readonly body: Buffer;
  /** Strong: a digest of the edited body, so a cached copy revalidates only when it is this one. */
  readonly etag: string;
}

async function readUiFiles(
  staticDir: string,
  edits: readonly UiEdit[],
): Promise<Map<string, string | undefined>> {
  const files = new Map<string, string | undefined>();
  for (const file of new Set(edits.map((edit) => edit.file))) {
    files.set(file, await readFile(join(staticDir, file), 'utf8').catch(() => undefined));
  }
  return files;
}

/**
 * The edited files of the UI at `uiPath`, keyed by their path under `dist/static`; none, after
 * one warning, when the installed UI is not the release the edits were written for.
 */
export async function loadEditedUi(
  uiPath: string,
  log: FastifyBaseLogger,
  edits: readonly UiEdit[] = UI_EDITS,
): Promise<Map<string, EditedAsset>> {
  const outcome = applyUiEdits(await readUiFiles(join(uiPath, 'dist/static'), edits), edits);
  if ('unmatched' in outcome) {
    log.warn(
      { unmatched: outcome.unmatched.map((edit) => `${edit.file}: ${edit.hides}`) },
      'dashboard UI served unedited: bull-board is not the release its edits name; buttons the guard refuses stay visible',
    );
    return new Map();
  }
  const assets = new Map<string, EditedAsset>();
  for (const [file, text] of outcome.edited) {
    const body = Buffer.from(text, 'utf8');
    const digest = createHash('sha256').update(body).digest('base64url');
    assets.set(file, { body, etag: `"${digest}"` });
  }
  return assets;
}

/** If-None-Match's weak comparison: `*`, or any listed tag with the same opaque part. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: EditedAsset): FastifyReply {
  // As @fastify/static answers for bull-board's other files: revalidate on every use.
  reply.header('cache-control', 'public, max-age=0').header('etag', asset.etag);
  if (matchesEtag(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
  return reply.type('application/javascript; charset=utf-8').send(asset.body);
}

/**
 * Serves each edited file at its own path, in place of bull-board's static copy: a route of its
 * own wins over @fastify/static's wildcard. Every edited file is a script.
 */
export function serveEditedUi(
  app: FastifyInstance,
  assets: ReadonlyMap<string, EditedAsset>,
): void {
  for (const [file, asset] of assets) {
    app.get(`${DASHBOARD_PATH}/static/${file}`, { schema: { hide: true } }, (request, reply) =>
      sendAsset(request, reply, asset),
    );
  }
}
