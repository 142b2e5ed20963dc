// The chart's Argo CD resource customizations (files/argocd), run by a real Lua 5.1 interpreter, as
// Argo CD's gopher-lua runs them, against the directives real runs leave behind.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PAUSED_ANNOTATION } from '../../src/directive/types.js';
import { requiredBinary } from '../support/binaries.js';
import {
  directive,
  eventually,
  startHarness,
  TOKEN,
  waitForState,
  type Harness,
} from '../support/harness.js';

const lua = requiredBinary('lua5.1', 'apt-get install lua5.1');
const files = fileURLToPath(new URL('../../charts/pod-bouncer/files/argocd/', import.meta.url));

/** A JSON value as a Lua 5.1 table constructor (strings byte by byte, so any text survives). */
function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const bytes = [...Buffer.from(value, 'utf8')].map((byte) => `\\${byte}`);
    return `"${bytes.join('')}"`;
  }
  if (Array.isArray(value)) return `{${value.map(toLua).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).map(
    ([key, each]) => `[${toLua(key)}] = ${toLua(each)}`,
  );
  return `{${entries.join(', ')}}`;
}

/** Runs a customization with `obj` set as Argo CD sets it; `print` is what the test reads back. */
function run(script: string, object: unknown, print: string): string[] {
  const program = `obj = ${toLua(object)}
local result = assert(loadfile(${toLua(`${files}${script}`)}))()
${print}`;
  return execFileSync(lua!, ['-'], { input: program, encoding: 'utf8' }).split('\n').slice(0, -1);
}

function health(object: unknown): { status: string; message: string } {
  const [status = '', message = ''] = run(
    'health.lua',
    object,
    'print(result.status)\nprint(result.message)',
  );
  return { status, message };
}

describe.skipIf(lua === undefined)('the Argo CD health check and actions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('argocd', { env: { POLL_INTERVAL_MS: '100' } });
  });
  afterAll(async () => h.close());

  function workload(namespace: string, readinessDelayMs = 50): void {
    h.sim.addWorkload({
      namespace,
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'app' },
      replicas: 4,
      readinessDelayMs,
    });
  }

  const control = (namespace: string, name: string, action: string) =>
    fetch(`${h.serve.url}/v1/directives/${namespace}/${name}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });

  it('says Healthy for a FINISHED run, and Progressing once the spec moves on', async () => {
    workload('finished');
    const manifest = directive('finished', 'certs', [
      { namespace: 'finished', labels: { app: 'app' }, maxUnavailable: '100%' },
    ]);
    h.sim.applyDirective(manifest);
    expect((await h.post({ directive: { namespace: 'finished', name: 'certs' } })).status).toBe(
      202,
    );
    const done = await waitForState(h, 'finished', 'certs', 'FINISHED');
    expect(health(done)).toMatchObject({ status: 'Healthy' });

    // A new generation that no run describes yet: a stale Ready True is not health.
    h.sim.applyDirective({
      ...manifest,
      spec: {
        podsToBounce: [{ namespace: 'finished', labels: { app: 'app' }, maxUnavailable: 1 }],
      },
    });
    const changed = h.sim.getDirective('finished', 'certs') as any;
    expect(changed.metadata.generation).toBe(2);
    expect(changed.status.observedGeneration).toBe(1);
    expect(health(changed).status).toBe('Progressing');
  });

  it('says Progressing while bouncing, Suspended while paused, Degraded once aborted', async () => {
    workload('running', 400);
    h.sim.applyDirective(
      directive('running', 'certs', [
        { namespace: 'running', labels: { app: 'app' }, maxUnavailable: 1, waitForReplicas: 4 },
      ]),
    );
    expect((await h.post({ directive: { namespace: 'running', name: 'certs' } })).status).toBe(202);
    const bouncing = await waitForState(h, 'running', 'certs', 'BOUNCING_PODS');
    expect(health(bouncing).status).toBe('Progressing');

    expect((await control('running', 'certs', 'pause')).status).toBe(200);
    const paused = await eventually('Ready to say Paused', () => {
      const object = h.sim.getDirective('running', 'certs') as any;
      const ready = object?.status?.conditions?.find((c: any) => c.type === 'Ready');
      return ready?.reason === 'Paused' ? object : undefined;
    });
    expect(paused.metadata.annotations[PAUSED_ANNOTATION]).toBe('true');
    expect(health(paused)).toMatchObject({ status: 'Suspended' });

    expect((await control('running', 'certs', 'abort')).status).toBe(202);
    const failed = await waitForState(h, 'running', 'certs', 'FAILED');
    expect(health(failed)).toMatchObject({ status: 'Degraded' });
    expect(health(failed).message).toMatch(/abort/i);
  });

  it('offers pause while running and resume while paused, and each sets what the api sets', () => {
    const running = { metadata: { name: 'certs', namespace: 'mesh', generation: 1 } };
    const offered = (object: unknown) =>
      run(
        'actions/discovery.lua',
        object,
        'print(tostring(result.pause.disabled))\nprint(tostring(result.resume.disabled))',
      );
    expect(offered(running)).toEqual(['false', 'true']);
    const annotation = `print(tostring(result.metadata.annotations[${toLua(PAUSED_ANNOTATION)}]))`;
    expect(run('actions/pause/action.lua', running, annotation)).toEqual(['true']);
    const paused = {
      metadata: { ...running.metadata, annotations: { [PAUSED_ANNOTATION]: 'true' } },
    };
    expect(offered(paused)).toEqual(['true', 'false']);
    expect(run('actions/resume/action.lua', paused, annotation)).toEqual(['nil']);
  });
});
