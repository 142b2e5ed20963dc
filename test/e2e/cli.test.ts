import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/redis-server.js';
import { linesOf, runCli, runCommand } from '../support/cli-run.js';
import {
  directive,
  eventually,
  startHarness,
  stuckMesh,
  TOKEN,
  type Harness,
} from '../support/harness.js';

const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const SUBCOMMANDS = [
  'serve',
  'work',
  'all',
  'demo',
  'sim',
  'send',
  'status',
  'retry',
  'pause',
  'resume',
  'abort',
  'help',
];

const HMAC_SECRET = 'cli-hmac-secret-Wq2Er3';

/** util-linux `script` gives the command a real pseudo-terminal. CI must have it (.ci/run). */
const hasScript = spawnSync('script', ['--version']).status === 0;

/** The CLI as a user runs it, against a real api and worker on the simulated cluster. */
describe('pod-bouncer CLI', () => {
  let h: Harness;
  let env: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness('cli', {
      env: { READINESS_TIMEOUT_SECONDS: '4', WEBHOOK_HMAC_SECRET: HMAC_SECRET },
    });
    env = { POD_BOUNCER_URL: h.serve.url, POD_BOUNCER_TOKEN: TOKEN };
    for (const [app, readinessDelayMs] of [
      ['istiod', 50],
      ['reviews', 50],
      ['slow', 2500],
    ] as const) {
      h.sim.addWorkload({
        namespace: 'mesh',
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 2,
        readinessDelayMs,
      });
    }
    h.sim.applyDirective(
      directive('mesh', 'certs', [
        { namespace: 'mesh', labels: { app: 'istiod' }, waitForReplicas: 2 },
        { namespace: 'mesh', labels: { app: 'reviews' }, waitForReplicas: 2 },
      ]),
    );
    h.sim.applyDirective(
      directive('mesh', 'narrow', [
        { namespace: 'mesh', labels: { app: 'reviews' }, waitForReplicas: 2 },
      ]),
    );
    h.sim.applyDirective(
      directive('mesh', 'slow', [
        { namespace: 'mesh', labels: { app: 'slow' }, waitForReplicas: 2 },
        { namespace: 'mesh', labels: { app: 'slow' }, waitForReplicas: 2 },
      ]),
    );
  });
  afterAll(async () => h.close());

  it('prints help, per subcommand with its environment variables, and the version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const command of SUBCOMMANDS)
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const status = await runCli(['help', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('--watch');
    expect(status.stdout).toContain('POD_BOUNCER_URL');
    expect(status.stdout).toContain('POD_BOUNCER_TOKEN');
    // Only send signs: the other commands do not offer the signing secrets.
    expect(status.stdout).not.toContain('POD_BOUNCER_STANDARD_SECRET');
    const send = await runCli(['help', 'send']);
    expect(send.stdout).toContain('POD_BOUNCER_HMAC_SECRET');
    expect(send.stdout).toContain('POD_BOUNCER_STANDARD_SECRET');
    const versionAnswer = await runCli(['--version']);
    expect(versionAnswer).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('stops quietly when its reader closes the pipe early', async () => {
    // `head` reads one line and exits: the rest of the help may meet a closed pipe (EPIPE), which
    // printed a stack trace in about half the tries before; five tries.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const piped = await runCommand('sh', [
        '-c',
        `"${process.execPath}" bin/pod-bouncer.js --help | head -1`,
      ]);
      expect(piped.stdout).toMatch(/^Usage: pod-bouncer/);
      expect(piped.stderr).toBe('');
    }
  });

  it('serve --help prints help and does not start the server', async () => {
    const port = await freePort();
    const result = await runCli(['serve', '--help'], { PORT: String(port), WEBHOOK_AUTH: 'none' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: pod-bouncer serve');
    expect(result.stdout).toContain('WEBHOOK_TOKENS');
    expect(result.stdout).not.toMatch(/listening/);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('sends an event, shows plain status lines, and --watch exits 0 on FINISHED', async () => {
    const sent = await runCli(['send', 'mesh/certs'], env);
    expect(sent.code).toBe(0);
    const accepted = JSON.parse(sent.stdout);
    expect(accepted).toMatchObject({ directive: 'mesh/certs', duplicate: false });
    expect(accepted.jobIds).toHaveLength(2);

    // The PENDING status follows the answer.
    await eventually('a status', () => h.sim.getDirective('mesh', 'certs')?.status?.state);
    const status = await runCli(['status', 'mesh/certs'], env);
    expect(status.code).toBe(0);
    const lines = linesOf(status.stdout);
    expect(lines[0]).toMatch(/^mesh\/certs {2}(PENDING|BOUNCING_PODS|FINISHED) {2}generation 1/);
    expect(lines.slice(1)).toHaveLength(2);
    expect(lines[1]).toMatch(/^selector 1\/2 {2}bounced \S+ {2}ready \S+ {2}\S+/);
    expect(status.stdout).not.toMatch(/[█░]|\x1b\[/);

    const watched = await runCli(['status', '--watch', 'mesh/certs'], env);
    expect(watched.code).toBe(0);
    const last = linesOf(watched.stdout).slice(-3);
    expect(last[0]).toMatch(/^mesh\/certs {2}FINISHED/);
    expect(last[1]).toMatch(/^selector 1\/2 {2}bounced 2\/2 .* completed/);
    expect(last[2]).toMatch(/^selector 2\/2 {2}bounced 2\/2 .* completed/);
  });

  it('--watch exits 1 on FAILED; retry answers, and nothing to retry is one sentence', async () => {
    stuckMesh(h, 'stuck');
    expect((await runCli(['send', 'istio-system/stuck'], env)).code).toBe(0);
    const watched = await runCli(['status', '--watch', 'istio-system/stuck'], env);
    expect(watched.code).toBe(1);
    expect(linesOf(watched.stdout).at(-3)).toMatch(/FAILED .*selector 0: timed out/);
    const retried = await runCli(['retry', 'istio-system/stuck'], env);
    expect(retried.code).toBe(0);
    expect(JSON.parse(retried.stdout).retried).toHaveLength(1);
    const nothing = await runCli(['retry', 'mesh/certs'], env);
    expect(nothing.code).toBe(1);
    expect(linesOf(nothing.stderr)).toEqual([expect.stringMatching(/^Nothing has failed .*\.$/)]);
  });

  it('pause, resume and abort answer with the api state or its one sentence', async () => {
    // A run that stays in progress: its only selector waits for a root cert that never syncs.
    h.sim.addWorkload({
      namespace: 'mesh',
      name: 'held',
      kind: 'ReplicaSet',
      labels: { app: 'held' },
      replicas: 1,
    });
    h.sim.putSecret('mesh', 'cacerts', { 'root-cert.pem': 'NEW ROOT' });
    h.sim.putConfigMap('mesh', 'istio-ca-root-cert', { 'root-cert.pem': 'OLD ROOT' });
    const rootCertSync = {
      secretRef: { name: 'cacerts', namespace: 'mesh' },
      secretKey: 'root-cert.pem',
      configMapRef: { name: 'istio-ca-root-cert', namespace: 'mesh' },
      configMapKey: 'root-cert.pem',
    };
    const { uid } = h.sim.applyDirective(
      directive('mesh', 'held', [{ namespace: 'mesh', labels: { app: 'held' }, rootCertSync }]),
    ).metadata;
    const stored = () => h.sim.getDirective('mesh', 'held') as any;
    const ready = () => stored().status?.conditions?.find((c: any) => c.type === 'Ready');
    expect((await runCli(['send', 'mesh/held'], env)).code).toBe(0);
    await eventually('the run to wait for the root cert', () =>
      ready()?.reason === 'Waiting' ? true : undefined,
    );

    const paused = await runCli(['pause', 'mesh/held'], env);
    expect(paused).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(paused.stdout)).toEqual({
      directive: 'mesh/held',
      generation: 1,
      paused: true,
      state: 'BOUNCING_PODS',
    });
    expect(stored().metadata.annotations?.['pod-bouncer.io/paused']).toBe('true');
    await eventually('Ready to say Paused', () =>
      ready()?.reason === 'Paused' ? true : undefined,
    );

    const resumed = await runCli(['resume', 'mesh/held'], env);
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(resumed.stdout)).toEqual({
      directive: 'mesh/held',
      generation: 1,
      paused: false,
      state: 'BOUNCING_PODS',
    });
    expect(stored().metadata.annotations?.['pod-bouncer.io/paused']).toBeUndefined();
    await eventually('Ready to wait again', () =>
      ready()?.reason === 'Waiting' ? true : undefined,
    );

    const aborted = await runCli(['abort', 'mesh/held'], env);
    expect(aborted).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(aborted.stdout)).toEqual({
      directive: 'mesh/held',
      generation: 1,
      aborted: `${uid}.g1.r0`,
    });
    await eventually('the run to end FAILED', () =>
      stored().status?.state === 'FAILED' ? true : undefined,
    );
    expect(stored().status.error).toBe('selector 0: aborted');
    const stalled = stored().status.conditions.find((c: any) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'Aborted' });

    // Nothing left to abort: the api's sentence, exit 1, and the directive as it was.
    const again = await runCli(['abort', 'mesh/held'], env);
    expect(again).toEqual({
      code: 1,
      stdout: '',
      stderr: 'mesh/held (generation 1, run 0) is not in progress.\n',
    });
    expect(stored().status).toMatchObject({ state: 'FAILED', error: 'selector 0: aborted' });
  });

  it('an unreachable api is one sentence and exit 1; bad credentials are the api sentence', async () => {
    const port = await freePort();
    const down = await runCli(['status', 'mesh/certs'], {
      POD_BOUNCER_URL: `http://127.0.0.1:${port}`,
      POD_BOUNCER_TOKEN: TOKEN,
    });
    expect(down.code).toBe(1);
    expect(linesOf(down.stderr)).toEqual([
      expect.stringMatching(
        /^Could not reach pod-bouncer at http:\/\/127\.0\.0\.1:\d+ \(the connection was refused\)/,
      ),
    ]);
    const refused = await runCli(['send', 'mesh/certs'], { ...env, POD_BOUNCER_TOKEN: 'wrong' });
    expect(refused.code).toBe(1);
    expect(linesOf(refused.stderr)).toEqual(['The credentials are not valid.']);
  });

  it('signs send with POD_BOUNCER_HMAC_SECRET over the exact body; the api takes no signature elsewhere', async () => {
    const hmac = { POD_BOUNCER_URL: h.serve.url, POD_BOUNCER_HMAC_SECRET: HMAC_SECRET };
    const signed = await runCli(['send', 'mesh/certs', '--dry-run'], hmac);
    expect(signed.stderr).toBe('');
    expect(signed.code).toBe(0);
    expect(JSON.parse(signed.stdout)).toBeTypeOf('object');
    const wrong = await runCli(['send', 'mesh/certs'], { ...hmac, POD_BOUNCER_HMAC_SECRET: 'x' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe('The credentials are not valid.\n');
    // The secret does not stand in for a token: status says what it needs, asking nothing.
    const status = await runCli(['status', 'mesh/certs'], hmac);
    expect(status.code).toBe(1);
    expect(linesOf(status.stderr)).toEqual([
      expect.stringMatching(/^pod-bouncer status needs POD_BOUNCER_TOKEN/),
    ]);
  });

  it('usage errors exit 2', async () => {
    expect((await runCli(['status'], env)).code).toBe(2);
    expect((await runCli(['send', 'not-a-reference'], env)).code).toBe(2);
    expect((await runCli(['send', 'mesh/certs', '--issued-at', 'yesterday'], env)).code).toBe(2);
    expect((await runCli(['bounce-everything'], env)).code).toBe(2);
    expect((await runCli([], env)).code).toBe(2);
  });

  it.runIf(hasScript || process.env.CI)(
    'redraws status --watch in place on a terminal',
    async () => {
      // In CI a missing `script` fails here instead of skipping.
      expect(hasScript).toBe(true);
      expect((await runCli(['send', 'mesh/slow'], env)).code).toBe(0);
      const command = `node bin/pod-bouncer.js status --watch mesh/slow`;
      // Not spawnSync: the api under test runs in this process and must keep answering.
      const run = await runCommand('script', ['-qefc', command, '/dev/null'], {
        ...env,
        TERM: 'xterm',
      });
      const output = run.stdout;
      expect(run.code, output).toBe(0);
      expect(output).toMatch(/█/);
      // Redrawn in place: cursor up over the previous block, then clear to the end of the screen.
      expect(output).toMatch(/\x1b\[3A\x1b\[J/);
      expect(output).toMatch(/mesh\/slow {2}FINISHED/);
    },
  );

  it.runIf(hasScript || process.env.CI)(
    'fits each line of status --watch to a narrow terminal, so the redraw leaves no wrapped rows',
    async () => {
      expect(hasScript).toBe(true);
      expect((await runCli(['send', 'mesh/narrow'], env)).code).toBe(0);
      const command = `stty cols 40 rows 20; node bin/pod-bouncer.js status --watch mesh/narrow`;
      const run = await runCommand('script', ['-qefc', command, '/dev/null'], {
        ...env,
        TERM: 'xterm',
      });
      expect(run.code, run.stdout).toBe(0);
      const rows = run.stdout
        .split(/\r?\n/)
        .map((row) => row.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''))
        .filter((row) => row.length > 0);
      expect(rows.some((row) => row.startsWith('mesh/narrow  FINISHED'))).toBe(true);
      for (const row of rows) expect([...row].length, row).toBeLessThan(40);
    },
  );
});
