import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './redis-server.js';

/**
 * Throw-away Redis topologies of a test's own: redis-server processes on free ports (never 6379),
 * persistence off, config and cluster state in a temp dir removed by `stop()`.
 */
export interface Topology {
  /** The environment that points pod-bouncer at it. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

interface Node {
  port: number;
  child: ChildProcess;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs one command on 127.0.0.1:port with a short-lived client. */
export async function command(port: number, ...args: (string | number)[]): Promise<unknown> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const [name, ...rest] = args;
    return await client.call(String(name), ...rest);
  } finally {
    client.disconnect();
  }
}

/** A redis-server whose files (a replica's synced RDB, cluster state) stay in its own sub-dir. */
function startNode(port: number, parent: string, args: string[]): Node {
  const dir = join(parent, String(port));
  mkdirSync(dir, { recursive: true });
  const child = spawn(
    'redis-server',
    [
      ...args,
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  return { port, child };
}

/** Runs a start-up step; if it fails, the nodes started so far are stopped before rethrowing. */
async function orStop<T>(nodes: Node[], dir: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await stopNodes(nodes, dir);
    throw error;
  }
}

async function stopNodes(nodes: Node[], dir: string): Promise<void> {
  await Promise.all(nodes.map(({ child }) => kill(child)));
  await rm(dir, { recursive: true, force: true });
}

/** SIGKILL one process and wait until it is gone (an outage, not a clean shutdown). */
export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

export interface SentinelTopology extends Topology {
  name: string;
  sentinelPort: number;
  /** The port of the current master, as the sentinel reports it. */
  masterPort(): Promise<number>;
  /** `SENTINEL FAILOVER`, resolved once the sentinel reports a different master. */
  failover(): Promise<{ from: number; to: number }>;
  /** SIGKILL the current master, resolved once the sentinel has promoted the replica. */
  killMaster(): Promise<{ from: number; to: number }>;
  /** SIGKILL the current master at once, without waiting for its replica to catch up. */
  killMasterNow(): Promise<{ from: number; to: number }>;
  /** SIGSTOP the replicas (they stop acknowledging writes); the returned function resumes them. */
  freezeReplicas(): Promise<() => void>;
  /** Restarts every killed data node as a replica of the current master, in sync. */
  revive(): Promise<void>;
}

/** A master, one replica and one sentinel watching them (quorum 1). */
export async function startSentinel(name = 'pbmaster'): Promise<SentinelTopology> {
  const dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-sentinel-'));
  const [masterPort, replicaPort, sentinelPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const nodes: Node[] = [startNode(masterPort, dir, [])];
  nodes.push(startNode(replicaPort, dir, ['--replicaof', '127.0.0.1', String(masterPort)]));
  await orStop(nodes, dir, () =>
    until('the replica to sync', async () => {
      const info = String(await command(replicaPort, 'INFO', 'replication'));
      return info.includes('master_link_status:up');
    }),
  );
  const conf = join(dir, 'sentinel.conf');
  await writeFile(
    conf,
    [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${masterPort} 1`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 3000`,
      '',
    ].join('\n'),
  );
  nodes.push({
    port: sentinelPort,
    child: spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' }),
  });
  const masterOf = async (): Promise<number> => {
    const reply = (await command(
      sentinelPort,
      'SENTINEL',
      'get-master-addr-by-name',
      name,
    )) as string[];
    return Number(reply[1]);
  };
  await orStop(nodes, dir, () =>
    until('the sentinel to see the replica', async () => {
      const replicas = (await command(sentinelPort, 'SENTINEL', 'replicas', name)) as string[][];
      return replicas.some((fields) => {
        const flags = fields[fields.indexOf('flags') + 1] ?? '';
        return flags === 'slave' && fields.includes(String(replicaPort));
      });
    }),
  );
  const dataPorts = [masterPort, replicaPort];
  /** Until every living replica follows `master` with a live link and its whole stream. */
  const replicasInSync = async (master: number): Promise<void> => {
    const living = nodes.filter(
      (node) =>
        dataPorts.includes(node.port) &&
        node.port !== master &&
        node.child.exitCode === null &&
        node.child.signalCode === null,
    );
    for (const { port } of living) {
      await until(
        `replica ${port} to be in sync with ${master}`,
        async () => {
          const offset = /master_repl_offset:(\d+)/.exec(
            String(await command(master, 'INFO', 'replication')),
          )?.[1];
          const info = String(await command(port, 'INFO', 'replication'));
          return (
            info.includes(`master_port:${master}`) &&
            info.includes('master_link_status:up') &&
            Number(/slave_repl_offset:(\d+)/.exec(info)?.[1]) >= Number(offset)
          );
        },
        30_000,
      );
    }
  };
  return {
    name,
    sentinelPort,
    env: { REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`, REDIS_SENTINEL_NAME: name },
    masterPort: masterOf,
    // Each switch starts from replicas in sync, so that what it tests is the clients following
    // the new master, not a replica that had not received the last writes (a documented loss).
    async failover() {
      await replicasInSync(await masterOf());
      const result = await switchMaster(masterOf, () =>
        command(sentinelPort, 'SENTINEL', 'FAILOVER', name),
      );
      await replicasInSync(result.to);
      return result;
    },
    async killMaster() {
      await replicasInSync(await masterOf());
      return switchMaster(masterOf, async (from) => {
        const master = nodes.find((node) => node.port === from);
        if (master) await kill(master.child);
      });
    },
    async killMasterNow() {
      return switchMaster(masterOf, async (from) => {
        const master = nodes.find((node) => node.port === from);
        if (master) await kill(master.child);
      });
    },
    async freezeReplicas() {
      const master = await masterOf();
      const replicas = nodes.filter(
        (node) => dataPorts.includes(node.port) && node.port !== master,
      );
      for (const { child } of replicas) child.kill('SIGSTOP');
      return () => {
        for (const { child } of replicas) child.kill('SIGCONT');
      };
    },
    async revive() {
      const master = await masterOf();
      for (const [index, node] of nodes.entries()) {
        const dead = node.child.exitCode !== null || node.child.signalCode !== null;
        if (!dataPorts.includes(node.port) || !dead) continue;
        nodes[index] = startNode(node.port, dir, ['--replicaof', '127.0.0.1', String(master)]);
      }
      await replicasInSync(master);
      await until('the sentinel to see every replica', async () => {
        const replicas = (await command(sentinelPort, 'SENTINEL', 'replicas', name)) as string[][];
        const seen = replicas.filter((fields) => fields[fields.indexOf('flags') + 1] === 'slave');
        return seen.length === dataPorts.length - 1;
      });
    },
    stop: () => stopNodes(nodes, dir),
  };
}

/** Runs `act` on the current master and waits until the sentinel names another one. */
async function switchMaster(
  masterOf: () => Promise<number>,
  act: (from: number) => Promise<unknown>,
): Promise<{ from: number; to: number }> {
  const from = await masterOf();
  await act(from);
  let to = from;
  await until(
    'the sentinel to switch masters',
    async () => {
      to = await masterOf();
      return to !== from;
    },
    30_000,
  );
  return { from, to };
}

export interface ClusterTopology extends Topology {
  ports: number[];
}

/** Three masters, no replicas, slots spread by `redis-cli --cluster create`. */
export async function startCluster(): Promise<ClusterTopology> {
  const dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-cluster-'));
  const nodes: Node[] = [];
  for (let index = 0; index < 3; index += 1) {
    const [port, busPort] = [await freePort(), await freePort()];
    nodes.push(
      startNode(port, dir, [
        '--cluster-enabled',
        'yes',
        '--cluster-port',
        String(busPort),
        '--cluster-config-file',
        join(dir, `nodes-${index}.conf`),
      ]),
    );
  }
  const ports = nodes.map(({ port }) => port);
  await orStop(nodes, dir, async () => {
    for (const port of ports) {
      await until(`node ${port}`, async () => (await command(port, 'PING')) === 'PONG');
    }
  });
  const created = spawnSync(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (created.status !== 0) {
    await stopNodes(nodes, dir);
    throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  }
  await orStop(nodes, dir, async () => {
    for (const port of ports) {
      await until(`cluster_state:ok on ${port}`, async () =>
        String(await command(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
      );
    }
  });
  return {
    ports,
    env: { REDIS_CLUSTER_NODES: ports.map((p) => `127.0.0.1:${p}`).join(',') },
    stop: () => stopNodes(nodes, dir),
  };
}
