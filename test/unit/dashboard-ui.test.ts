import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { UI_EDITS } from '../../src/ingress/dashboard-ui-edits.js';
import {
  applyUiEdits,
  bullBoardUiPath,
  loadEditedUi,
  occurrences,
} from '../../src/ingress/dashboard-ui.js';
import { createLogger } from '../../src/logger.js';
import { LogCapture } from '../support/log-capture.js';

const UI = bullBoardUiPath();
const staticFile = (file: string) => readFile(join(UI, 'dist/static', file), 'utf8');
const editedFiles = [...new Set(UI_EDITS.map((edit) => edit.file))];

async function installedFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const file of editedFiles) files.set(file, await staticFile(file));
  return files;
}

describe('the edits of the installed bull-board UI', () => {
  it('are written for the installed release', async () => {
    const pkg = JSON.parse(await readFile(join(UI, 'package.json'), 'utf8'));
    expect(pkg.version).toBe('9.10.1');
  });

  // An upgraded bull-board renames its chunks or changes their text: this fails until the edits
  // are written again for it (else the dashboard would show refused buttons again).
  it.each(UI_EDITS.map((edit) => [`${edit.file}: ${edit.hides}`, edit] as const))(
    'finds its needle exactly once: %s',
    async (_name, edit) => {
      expect(occurrences(await staticFile(edit.file), edit.needle)).toBe(1);
    },
  );

  it('leave scripts that still compile, with every needle replaced', async () => {
    const outcome = applyUiEdits(await installedFiles(), UI_EDITS);
    if (!('edited' in outcome)) throw new Error('an edit did not apply');
    expect([...outcome.edited.keys()].sort()).toEqual([...editedFiles].sort());
    for (const edit of UI_EDITS) {
      const text = outcome.edited.get(edit.file)!;
      expect(occurrences(text, edit.needle), edit.hides).toBe(0);
      expect(text).toContain(edit.replacement);
    }
    for (const [file, text] of outcome.edited) expect(() => new Script(text), file).not.toThrow();
  });
});

describe('edits whose needle is not there', () => {
  it('apply none, and name the edits that missed', async () => {
    const files = await installedFiles();
    const [first, second] = UI_EDITS;
    files.set(first!.file, files.get(first!.file)!.replace(first!.needle, 'changed'));
    const outcome = applyUiEdits(files, UI_EDITS);
    expect(outcome).toEqual({ unmatched: [first] });

    files.set(second!.file, `${files.get(second!.file)!}${second!.needle}`);
    expect(applyUiEdits(files, UI_EDITS)).toEqual({ unmatched: [first, second] });
  });

  it('leave the UI unedited after one warning', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'pod-bouncer-ui-'));
    try {
      await cp(join(UI, 'dist/static/js'), join(copy, 'dist/static/js'), { recursive: true });
      const capture = new LogCapture();
      const log = createLogger('info', capture);
      expect((await loadEditedUi(copy, log)).size).toBe(editedFiles.length);
      expect(capture.lines()).toHaveLength(0);

      // A file of another release: its chunk names differ, so one of ours is gone.
      await writeFile(join(copy, 'dist/static', UI_EDITS[0]!.file), 'other release');
      expect((await loadEditedUi(copy, log)).size).toBe(0);
      const lines = capture.lines().map((line) => JSON.parse(line));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 'warn',
        unmatched: [`${UI_EDITS[0]!.file}: ${UI_EDITS[0]!.hides}`],
      });
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
