// `npx tsx bench/mesh-once.ts [workloads] [concurrency]`: one mesh run (bench/mesh.ts) alone: its
// figures, the worker's requests by verb and resource, and a timeline (requests of each kind per
// second since the event was posted). Builds nothing: run `npm run build` first (the worker is
// `node dist/cli.js work`). MESH_NODE_OPTIONS replaces the worker's node flags (`--cpu-prof
// --cpu-prof-dir=.tmp/profile` profiles it).
import type { RequestLogEntry } from '../src/sim/types.js';
import { meshRun } from './mesh.js';

const workloads = Number(process.argv[2] ?? 100);
const concurrency = Number(process.argv[3] ?? 50);

function timeline(sent: RequestLogEntry[], started: number): void {
  const kinds = ['pods/eviction', 'pods', 'podbouncedirectives/status', 'events', 'secrets'];
  const rows = new Map<number, number[]>();
  for (const request of sent) {
    if (request.watch) continue;
    const kind = `${request.resource}${request.subresource ? `/${request.subresource}` : ''}`;
    const column = kinds.indexOf(kind);
    if (column < 0) continue;
    const second = Math.floor((request.at - started) / 1000);
    const row = rows.get(second) ?? kinds.map(() => 0);
    row[column] = (row[column] ?? 0) + 1;
    rows.set(second, row);
  }
  console.log(`second ${kinds.join(' ')}`);
  for (const [second, row] of [...rows].sort((a, b) => a[0] - b[0])) {
    console.log(`${second} ${row.join(' ')}`);
  }
}

/** Between one batch of a workload and its next: readiness (1 s) plus what the worker adds. */
function gaps(sent: RequestLogEntry[]): void {
  const last = new Map<string, number>();
  const all: number[] = [];
  for (const request of sent) {
    if (request.subresource !== 'eviction' || request.name === undefined) continue;
    const workload = request.name.replace(/-[^-]+$/, '');
    const before = last.get(workload);
    if (before !== undefined) all.push(request.at - before);
    last.set(workload, request.at);
  }
  all.sort((a, b) => a - b);
  const at = (q: number): number => all[Math.floor(q * (all.length - 1))] ?? 0;
  console.log(`batch gaps: n ${all.length} p10 ${at(0.1)} p50 ${at(0.5)} p90 ${at(0.9)} ms`);
}

/** The owners' scale reads: ReplicaSets read by name, listed, and watched. */
function replicaSets(sent: RequestLogEntry[]): void {
  const sets = sent.filter((request) => request.resource === 'replicasets');
  const named = sets.filter((request) => !request.watch && request.name !== undefined).length;
  const watches = sets.filter((request) => request.watch).length;
  console.log(
    `replicasets: ${named} read, ${sets.length - named - watches} listed, ${watches} watched`,
  );
}

const run = await meshRun(workloads, concurrency, {
  ...(process.env.MESH_NODE_OPTIONS ? { nodeOptions: process.env.MESH_NODE_OPTIONS } : {}),
  inspect: (sent, started) => {
    timeline(sent, started);
    gaps(sent);
    replicaSets(sent);
  },
});
console.log(JSON.stringify(run, null, 2));
process.exit(0);
