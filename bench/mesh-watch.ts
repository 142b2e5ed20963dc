// `npx tsx bench/mesh-watch.ts [workloads] [out-file]`: a mesh run (bench/mesh.ts, 500 workloads
// by default) watched as an operator watches it: `pod-bouncer status gloo-mesh/mesh-certs --watch`
// started once the event is accepted, once with stdout a pipe (plain lines) and once on a terminal
// (under util-linux `script`, 140 × 50). Writes the first and last screens of each to the file
// (default .tmp/mesh-watch.txt). Builds nothing: run `npm run build` first.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { meshRun } from './mesh.js';
import { TOKEN, type Stack } from './lib/stack.js';

const workloads = Number(process.argv[2] ?? 500);
const out = resolve(process.argv[3] ?? '.tmp/mesh-watch.txt');
const raw = `${out}.tty`;
const COMMAND = 'node dist/cli.js status gloo-mesh/mesh-certs --watch';

function run(command: string, args: string[], stack: Stack): Promise<string> {
  const child = spawn(command, args, {
    env: { ...process.env, POD_BOUNCER_URL: stack.serve.url, POD_BOUNCER_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return new Promise((done) => child.once('exit', (code) => done(`${text}(exit ${code})\n`)));
}

/** The screens a terminal showed: each redraw moves the cursor up over the block and clears. */
function screens(typescript: string): string[] {
  return typescript
    .replace(/^Script started.*\n/, '')
    .replace(/\nScript done.*\n?$/, '')
    .split(/\x1b\[\d+A\x1b\[J/)
    .map((screen) => screen.replace(/\r/g, ''));
}

let plain = '';
mkdirSync(dirname(out), { recursive: true });
const result = await meshRun(workloads, 50, {
  alongside: async (stack) => {
    const [piped] = await Promise.all([
      run('sh', ['-c', COMMAND], stack),
      run('script', ['-q', '-e', '-c', `stty cols 140 rows 50; ${COMMAND}`, raw], stack),
    ]);
    plain = piped;
  },
});
const lines = plain.trimEnd().split('\n');
const tty = screens(readFileSync(raw, 'utf8'));
const report = [
  `# ${workloads} workloads, wall ${result.wallMs} ms (floor ${result.floorMs} ms)`,
  `## stdout not a terminal: ${lines.length} lines; the first 12 and the last 12`,
  ...lines.slice(0, 12),
  '…',
  ...lines.slice(-12),
  `## on a terminal: ${tty.length} screens; the first and the last`,
  tty[0] ?? '',
  '…',
  tty.at(-1) ?? '',
].join('\n');
writeFileSync(out, `${report}\n`);
console.log(report);
process.exit(0);
