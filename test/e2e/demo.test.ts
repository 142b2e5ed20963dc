import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('pod-bouncer demo', () => {
  it('runs the whole flow on the simulated cluster and reaches FINISHED', async () => {
    const child = spawn(process.execPath, ['bin/pod-bouncer.js', 'demo'], {
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(output).toContain('is FINISHED');
    expect(output).toMatch(/selector 2 .*waiting for root cert/);
    expect(output).toMatch(/FINISHED: \d+ pod\(s\) deleted/);
    expect(code).toBe(0);
  }, 120_000);

  it('with --watch-directives, applies the directive instead of posting an event', async () => {
    const child = spawn(process.execPath, ['bin/pod-bouncer.js', 'demo', '--watch-directives'], {
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(output).toMatch(/kubectl apply --server-side: directive istio-system\/mesh-certs/);
    expect(output).not.toContain('POST ');
    expect(output).toContain('is FINISHED');
    expect(output).toMatch(/FINISHED: \d+ pod\(s\) deleted/);
    expect(code).toBe(0);
  }, 120_000);
});
