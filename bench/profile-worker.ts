// Where the scale run's worker spends its CPU and memory: `tsx bench/profile-worker.ts [directives]`
// (default 300) runs bench/scale.ts's scaleMany with the worker under --cpu-prof, samples its RSS
// from /proc, takes one heap snapshot half-way through the run (on SIGWINCH: close-with-grace
// shuts down on SIGUSR2), and prints self time by package, file and function (through the
// source maps), and the snapshot's self size by type and constructor.
// Profiles land in .tmp/profile/ (ignored by git). PROFILE_NODE_OPTIONS replaces the image's node
// flags; PROFILE_NO_BUILD=1 profiles dist/ as it is; SNAPSHOT=0 takes no heap snapshot (the
// snapshot itself adds to the peak RSS); SNAPSHOT_AT_MS says when to take it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { imageNodeOptions, scaleMany } from './scale.js';

const directives = Number(process.argv[2] ?? 300);
const dir = resolve('.tmp/profile');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

const maps = new Map<string, SourceMap | undefined>();

/** The bundled dist/ file's position mapped back to its source (src/*.ts or node_modules). */
function original(url: string, line: number, column: number): string {
  if (!url.startsWith('file://') || !url.includes('/dist/')) return url;
  if (!maps.has(url)) {
    try {
      const payload = JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as never;
      maps.set(url, new SourceMap(payload));
    } catch {
      maps.set(url, undefined);
    }
  }
  const entry = maps.get(url)?.findEntry(line, column);
  if (entry === undefined || !('originalSource' in entry)) return url;
  return `${entry.originalSource}:${entry.originalLine + 1}`;
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const at = url.indexOf('/dist/');
  return at >= 0 ? url.slice(at + 1) : url.replace(/^file:\/\//, '');
}

function packageOf(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules < 0) return url.startsWith('node:') ? 'node:internal' : url === '' ? '(vm)' : 'app';
  const parts = url.slice(modules + 'node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

function top(entries: Map<string, number>, total: number, count: number, label: string): void {
  console.log(`\n${label}`);
  for (const [key, value] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`  ${((100 * value) / total).toFixed(1).padStart(5)} %  ${key}`);
  }
}

function summarizeCpu(path: string): void {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  // Percentages of the busy samples: the worker is idle between wake-ups.
  const idle = profile.nodes
    .filter((node) => node.callFrame.functionName === '(idle)')
    .reduce((sum, node) => sum + (hits.get(node.id) ?? 0), 0);
  const total = profile.samples.length - idle;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, count] of hits) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    const { functionName } = frame;
    const place = original(frame.url, frame.lineNumber, frame.columnNumber);
    const url = place.replace(/:\d+$/, '');
    const fn = `${functionName || '(anonymous)'} ${shortUrl(place)}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + count);
    const file = shortUrl(url) || functionName;
    byFile.set(file, (byFile.get(file) ?? 0) + count);
    const pkg = url === '' ? functionName : packageOf(url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + count);
  }
  const seconds = (profile.endTime - profile.startTime) / 1e6;
  const interval = (profile.endTime - profile.startTime) / 1e3 / profile.samples.length;
  console.log(
    `\nCPU profile ${path}: ${total} busy samples (${((total * interval) / 1000).toFixed(1)} s) of ${profile.samples.length} over ${seconds.toFixed(1)} s`,
  );
  top(byPackage, total, 15, 'self time by package');
  top(byFile, total, 25, 'self time by file');
  top(byFunction, total, 40, 'self time by function');
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] }; node_count: number };
  nodes: number[];
  strings: string[];
}

/** Self size by type/constructor (retained sizes need a dominator tree; self size is enough here). */
function summarizeHeap(path: string): void {
  const data = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = data.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = data.snapshot.meta.node_types[0];
  const bySize = new Map<string, number>();
  const byCount = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt]!]!;
    const name = type === 'object' ? data.strings[data.nodes[i + nameAt]!]! : `(${type})`;
    const size = data.nodes[i + sizeAt]!;
    total += size;
    bySize.set(name, (bySize.get(name) ?? 0) + size);
    byCount.set(name, (byCount.get(name) ?? 0) + 1);
  }
  console.log(`\nheap snapshot ${path}: ${(total / 1048576).toFixed(1)} MB live`);
  for (const [name, size] of [...bySize].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(
      `  ${((100 * size) / total).toFixed(1).padStart(5)} %  ${(size / 1048576).toFixed(1).padStart(6)} MB  ${String(byCount.get(name)).padStart(8)}  ${name}`,
    );
  }
}

/** The worker: this process's child running dist/cli.js work. */
function workerPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.split(') ')[1]!.split(' ')[1]);
      if (ppid !== process.pid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('dist/cli.js')) return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

if (process.env.PROFILE_NO_BUILD !== '1')
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
const base = process.env.PROFILE_NODE_OPTIONS ?? imageNodeOptions();
const options = `${base} --cpu-prof --cpu-prof-dir=${dir} --heapsnapshot-signal=SIGWINCH --diagnostic-dir=${dir}`;
const samples: { t: number; rssMb: number }[] = [];
let snapshotTaken = false;
const started = Date.now();
// The run takes about directives x 10 ms + 8 s on a quiet machine: snapshot near its middle.
const snapshotAtMs = Number(process.env.SNAPSHOT_AT_MS ?? 4_000 + directives * 5);
const sampler = setInterval(() => {
  const pid = workerPid();
  if (pid === undefined) return;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    samples.push({ t: Date.now() - started, rssMb: Math.round(rss) });
    if (!snapshotTaken && Date.now() - started > snapshotAtMs && process.env.SNAPSHOT !== '0') {
      snapshotTaken = true;
      process.kill(pid, 'SIGWINCH');
    }
  } catch {
    // exited
  }
}, 250);
const result = await scaleMany(directives, options);
clearInterval(sampler);
console.log(JSON.stringify(result, null, 2));
console.log(
  'RSS samples (s: MB):',
  samples
    .filter((_, i) => i % 8 === 0)
    .map((s) => `${(s.t / 1000).toFixed(0)}:${s.rssMb}`)
    .join(' '),
);
for (const file of readdirSync(dir)) {
  if (file.endsWith('.cpuprofile')) summarizeCpu(join(dir, file));
}
for (const file of readdirSync(dir)) {
  if (file.endsWith('.heapsnapshot')) summarizeHeap(join(dir, file));
}
