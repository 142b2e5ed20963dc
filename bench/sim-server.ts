// The simulator in a process of its own, so that the API server's CPU is not charged to the
// process under test. argv: <directives to create in namespace "in">. Prints one JSON line
// {url, kubeconfig}, then serves until SIGTERM.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../src/sim/index.js';
import { directive, ingestSpec } from './lib/stack.js';

const count = Number(process.argv[2] ?? 0);
const sim = await startSimulator({ seed: 5, watchHistorySize: 100_000 });
for (let i = 0; i < count; i++) sim.applyDirective(directive('in', `n-${i}`, ingestSpec(i)));
sim.applyDirective(directive('in', 'dup', ingestSpec(-1)));
const kubeconfig = join(await mkdtemp(join(tmpdir(), 'pod-bouncer-bench-sim-')), 'kubeconfig');
await sim.writeKubeconfig(kubeconfig);
console.log(JSON.stringify({ url: sim.url, kubeconfig }));
process.on('SIGTERM', () => {
  void sim.close().then(() => process.exit(0));
});
