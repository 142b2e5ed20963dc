// Every relative link in the README, ARCHITECTURE.md, the chart and bench READMEs and docs/ leads
// somewhere: the file or folder exists and, for a `#fragment`, the page has that heading.
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const pages = [
  ...['README.md', 'ARCHITECTURE.md', 'bench/README.md', 'charts/pod-bouncer/README.md'].map((p) =>
    join(root, p),
  ),
  ...markdownUnder(join(root, 'docs')),
];

/** Markdown without its fenced code blocks and inline code, where a `[x](y)` is not a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{Letter}\p{Number} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(path: string): Set<string> {
  const headings = prose(readFileSync(path, 'utf8'))
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => anchorOf(line.replace(/^#+ /, '')));
  return new Set(headings);
}

function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(readFileSync(page, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue;
    const [file, fragment] = target!.split('#') as [string, string | undefined];
    const path = file === '' ? page : resolve(dirname(page), file);
    if (!existsSync(path)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (fragment === undefined || statSync(path).isDirectory()) continue;
    if (!anchorsOf(path).has(fragment)) broken.push(`${target}: no such heading`);
  }
  return broken;
}

describe('links in the documentation', () => {
  it('makes anchors the way GitHub does', () => {
    expect(anchorOf('KEDA: which Redis keys it reads, and why')).toBe(
      'keda-which-redis-keys-it-reads-and-why',
    );
    expect(anchorOf('A run FAILED')).toBe('a-run-failed');
    expect(anchorOf('`serve` cold start')).toBe('serve-cold-start');
  });

  it.each(pages.map((page) => relative(root, page)))('%s has no broken relative link', (page) => {
    expect(brokenLinks(join(root, page))).toEqual([]);
  });

  it('finds a missing file and a missing heading', () => {
    const page = join(mkdtempSync(join(tmpdir(), 'doc-links-')), 'page.md');
    writeFileSync(
      page,
      `# Title\n\n[ok](#title) [gone](./nope.md) [bad](#nothing) \`[code](./x.md)\`\n`,
    );
    expect(brokenLinks(page)).toEqual(['./nope.md: no such file', '#nothing: no such heading']);
  });

  it('checks a good number of links', () => {
    const count = pages
      .map((page) => [...prose(readFileSync(page, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)].length)
      .reduce((a, b) => a + b, 0);
    expect(count).toBeGreaterThan(50);
  });
});
