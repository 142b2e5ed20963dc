// A cluster whose kubeconfig has no TLS settings at all (an https API server trusted through the
// system's CAs): client-node then lends no dispatcher, and the gateway's plain-JSON requests
// (`raw-request.ts`) go through Node's own fetch instead. The simulator (plain HTTP) sits behind a
// TLS proxy whose certificate a child process trusts through NODE_EXTRA_CA_CERTS, as a system CA.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer, type Server } from 'node:tls';
import { stringify } from 'yaml';
import { startSimulator, type Simulator } from '../../src/sim/index.js';

const NS = 'notls';
const TOKEN = 'no-tls-token';
const source = (path: string) => resolve('src', path);

/**
 * In a child that trusts the proxy (the sources through tsx: the build is one bundle, without a
 * module per file): whether client-node lends a dispatcher, then the gateway's
 * LIST, a DELETE, an eviction and a second DELETE of the deleted pod (404: gone).
 */
const CHILD = `
import { RequestContext, HttpMethod } from ${JSON.stringify(pathToFileURL(resolve('node_modules/@kubernetes/client-node/dist/index.js')).href)};
import { loadKubeConfig } from ${JSON.stringify(source('kube/client.ts'))};
import { KubeGateway } from ${JSON.stringify(source('kube/gateway.ts'))};
const [ns, first, firstUid, second, secondUid] = process.argv.slice(2);
const kubeConfig = loadKubeConfig({ kubeconfig: process.env.KUBECONFIG });
const context = new RequestContext(kubeConfig.getCurrentCluster().server, HttpMethod.GET);
await kubeConfig.applySecurityAuthentication(context);
const kube = new KubeGateway(kubeConfig, { qps: 100, burst: 100 });
const listed = (await kube.listPods(ns, {})).map((pod) => pod.name).sort();
const deleted = await kube.deletePod(ns, first, firstUid);
const evicted = await kube.evictPod(ns, second, secondUid);
const again = await kube.deletePod(ns, first, firstUid);
await kube.close();
process.stdout.write(JSON.stringify({
  dispatcher: context.getDispatcher() !== undefined, listed, deleted, evicted, again,
}));
`;

function runChild(env: Record<string, string>, args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) =>
      code === 0 ? done(out) : fail(new Error(`child ${code}: ${err}`)),
    );
  });
}

let childScript = '';

describe('pod deletion on a cluster without TLS settings', () => {
  let sim: Simulator;
  let proxy: Server;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 19 });
    sim.registerToken(TOKEN, { username: 'no-tls' });
    dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-notls-'));
    childScript = join(dir, 'child.mts');
    await writeFile(childScript, CHILD);
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const simPort = Number(new URL(sim.url).port);
    proxy = createServer(
      { key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) },
      (socket) => {
        const upstream = connect(simPort, '127.0.0.1');
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      },
    );
    await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
    const server = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    await writeFile(
      join(dir, 'kubeconfig'),
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server } }],
        users: [{ name: 'u', user: { token: TOKEN } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
  });
  afterAll(async () => {
    await new Promise((closed) => proxy.close(closed));
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists, deletes and evicts through Node fetch, each pod once, with the uid precondition', async () => {
    const first = sim.addPod({ namespace: NS, name: 'p', labels: {} });
    const second = sim.addPod({ namespace: NS, name: 'q', labels: {} });
    const out = await runChild(
      { KUBECONFIG: join(dir, 'kubeconfig'), NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') },
      [NS, 'p', first.metadata.uid, 'q', second.metadata.uid],
    );
    expect(JSON.parse(out)).toEqual({
      dispatcher: false,
      listed: ['p', 'q'],
      deleted: 'deleted',
      evicted: 'evicted',
      again: 'gone',
    });
    expect(sim.deletionsByUid().get(first.metadata.uid)).toBe(1);
    expect(sim.deletionsByUid().get(second.metadata.uid)).toBe(1);
    const deletes = sim.requests().filter((r) => r.method === 'DELETE' && r.resource === 'pods');
    expect(deletes.map((r) => r.status)).toEqual([200, 404]);
    const evictions = sim.requests().filter((r) => r.subresource === 'eviction');
    expect(evictions.map((r) => r.status)).toEqual([201]);
  });
});
