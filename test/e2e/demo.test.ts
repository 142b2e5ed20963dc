import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { requiredBinary } from '../support/binaries.js';
import { answersPing, freePort } from '../support/redis-server.js';

const redisServer = requiredBinary('redis-server', 'apt-get install -y redis-server');

interface DemoRun {
  output: string;
  code: number | null;
}

async function runDemo(env: Record<string, string>, args: string[] = []): Promise<DemoRun> {
  const child = spawn(process.execPath, ['bin/pod-bouncer.js', 'demo', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { output, code };
}

function parsesAsObject(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}

/** What a person reads: no JSON, one clock, the words for what happened. */
function expectReadable(output: string): void {
  const lines = output.split('\n');
  expect(lines.filter(parsesAsObject)).toEqual([]);
  expect(output).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
  const stamped = lines.filter((line) => line.startsWith('['));
  expect(stamped.length).toBeGreaterThan(10);
  expect(stamped.filter((line) => !/^\[\+\s*\d+\.\ds\] /.test(line))).toEqual([]);
  expect(output).toContain('is FINISHED');
  expect(output).toMatch(/selector 2 .*waiting for root cert/);
  expect(output).toMatch(/FINISHED: 7 pod\(s\) evicted\.$/m);
  expect(output).not.toContain('deleted');
}

describe('pod-bouncer demo', () => {
  it('runs the whole flow on the simulated cluster and tells it in sentences', async () => {
    const run = await runDemo({});
    expectReadable(run.output);
    expect(run.output).not.toContain('private redis-server');
    expect(run.code).toBe(0);
  }, 120_000);

  it.skipIf(redisServer === undefined)(
    'starts a private redis-server when nothing answers at REDIS_URL, and stops it',
    async () => {
      // Nothing listens there: the port was taken from the kernel, then released.
      const port = await freePort();
      const run = await runDemo({ REDIS_URL: `redis://127.0.0.1:${port}` });
      const said = run.output.match(
        /^Nothing answered at redis:\/\/127\.0\.0\.1:\d+: started a private redis-server at (redis:\/\/127\.0\.0\.1:\d+) for this demo; it stops when the demo ends\.$/m,
      );
      expect(said).not.toBeNull();
      expect(run.output.match(/private redis-server/g)).toHaveLength(1);
      expectReadable(run.output);
      expect(run.code).toBe(0);
      expect(await answersPing(said![1]!)).toBe(false);
    },
    120_000,
  );

  it('with --watch-directives, applies the directive instead of posting an event', async () => {
    const run = await runDemo({}, ['--watch-directives']);
    expect(run.output).toMatch(/kubectl apply --server-side: directive istio-system\/mesh-certs/);
    expect(run.output).not.toContain('POST ');
    expect(run.output.split('\n').filter(parsesAsObject)).toEqual([]);
    expect(run.output).toContain('is FINISHED');
    expect(run.output).toMatch(/FINISHED: 7 pod\(s\) evicted\.$/m);
    expect(run.code).toBe(0);
  }, 120_000);
});
