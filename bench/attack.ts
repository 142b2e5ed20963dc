// `tsx bench/attack.ts [--cli dist/cli.js] [--quick]`: the latency of real events while 200
// unauthenticated connections attack the api (stalled uploads, junk bearer tokens with 256 KB
// bodies, junk service-account tokens), against the same events on a quiet api. Loopback only,
// bounded in count and time. `--cli` points at another build (e.g. an older commit's dist/).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startSimulator } from '../src/sim/index.js';
import { attack, watchRss, type AttackKind, type AttackMode } from './lib/attack.js';
import { ATTACK_SECRETS, attackEnv, sendReal } from './lib/real-event.js';
import { median, round } from './lib/stats.js';

const ATTACKERS = 200;
const GIVE_UP_MS = 15_000;

export interface AttackFigures {
  quietMedianMs: number;
  cases: Array<{
    attack: string;
    medianMs: number;
    ratio: number;
    accepted: number;
    stillOpenAfter15s: number;
    peakRssMiB: number;
  }>;
}

async function events(url: string, mode: AttackMode, count: number, tag: string) {
  const times: number[] = [];
  let accepted = 0;
  for (let i = 0; i < count; i += 1) {
    const answer = await sendReal(url, mode, { namespace: 'attackns', name: `${tag}-${i}` });
    if (answer.status === 202) accepted += 1;
    times.push(answer.ms);
  }
  return { medianMs: median(times), accepted };
}

function startApi(cli: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /"url":"(http:\/\/[^"]+)"[^\n]*pod-bouncer is listening/.exec(text)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', () => reject(new Error(`the api exited: ${text.slice(-500)}`)));
  });
  return { child, url };
}

export async function attackLatency(cli = 'dist/cli.js', count = 20): Promise<AttackFigures> {
  const sim = await startSimulator({ seed: 7 });
  const dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-attack-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
  sim.registerToken(ATTACK_SECRETS.serviceAccountToken, {
    username: 'system:serviceaccount:cert-manager:issuer',
    audiences: [ATTACK_SECRETS.audience],
  });
  const cases: Array<[AttackMode, AttackKind, string]> = [
    ['tokens', 'slow-body', 'slow-body'],
    ['tokens', 'junk', 'junk-token'],
    ['tokenreview', 'junk', 'junk-sa-token'],
  ];
  for (const tag of ['warm', 'quiet', ...cases.map((c) => c[2])]) {
    for (let i = 0; i < count; i += 1) {
      sim.applyDirective({
        apiVersion: 'internal.gloo.solo.io/v2',
        kind: 'PodBounceDirective',
        metadata: { namespace: 'attackns', name: `${tag}-${i}` },
        spec: { podsToBounce: [{ namespace: 'attackns', labels: {} }] },
      });
    }
  }
  const prefix = `bench-attack-${randomBytes(3).toString('hex')}`;
  const api = startApi(cli, {
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    KUBECONFIG: kubeconfig,
    QUEUE_PREFIX: prefix,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    NODE_OPTIONS: '--max-old-space-size=160',
    ...attackEnv(10),
  });
  try {
    const url = await api.url;
    // The sender's service-account token is known before any flood (its verdict is cached).
    await sendReal(url, 'tokenreview', { namespace: 'attackns', name: 'quiet-0' }, true);
    await events(url, 'tokens', count, 'warm'); // connections, caches, JIT: not measured
    const quiet = await events(url, 'tokens', count, 'quiet');
    const figures: AttackFigures = { quietMedianMs: round(quiet.medianMs), cases: [] };
    for (const [mode, kind, tag] of cases) {
      const rss = watchRss(api.child.pid!);
      const attacking = attack(url, mode, kind, ATTACKERS, {
        giveUpMs: GIVE_UP_MS,
        junkBytes: 256 * 1024,
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      const real = await events(url, mode === 'tokenreview' ? 'tokenreview' : 'tokens', count, tag);
      const ends = await attacking;
      figures.cases.push({
        attack: tag,
        medianMs: round(real.medianMs),
        ratio: round(real.medianMs / quiet.medianMs),
        accepted: real.accepted,
        stillOpenAfter15s: ends.filter((end) => end === 'gave up').length,
        peakRssMiB: Math.round(rss.stop() / 1048576),
      });
    }
    return figures;
  } finally {
    api.child.kill('SIGKILL');
    await sim.close();
    await rm(dir, { recursive: true, force: true });
    const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cliArg = process.argv.indexOf('--cli');
  const cli = cliArg > 0 ? process.argv[cliArg + 1]! : 'dist/cli.js';
  const figures = await attackLatency(cli, process.argv.includes('--quick') ? 10 : 20);
  console.log(`real events (token) on a quiet api: median ${figures.quietMedianMs} ms`);
  for (const row of figures.cases) {
    console.log(
      `  under ${ATTACKERS} ${row.attack.padEnd(14)} median ${String(row.medianMs).padStart(7)} ms  ` +
        `x${row.ratio}  accepted ${row.accepted}  attackers still open after 15 s: ${row.stillOpenAfter15s}  ` +
        `peak RSS ${row.peakRssMiB} MiB`,
    );
  }
}
