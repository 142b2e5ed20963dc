// DESIGN §4: every accepted run ends FINISHED or FAILED with a cause. On a cluster whose CRD takes
// less than pod-bouncer writes (here: condition messages and error of at most 120 characters), a
// status write refused with 422 fails the selector, and the FAILED status that says so, refused
// too when its cause does not fit, is written again with a cause of a few fixed words: the run
// ends FAILED instead of staying BOUNCING_PODS.
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defaultCrdPath } from '../../src/sim/crd.js';
import type { FakePrometheus } from '../support/fake-prometheus.js';
import { startGatedOnePod } from '../support/gated.js';
import { waitForState, type Harness } from '../support/harness.js';

const NS = 'refused';

/** The chart's CRD with condition messages and error bounded to `max` characters. */
async function tighterCrd(max: number): Promise<string> {
  const chart = await readFile(defaultCrdPath(), 'utf8');
  const tight = chart
    .replace('maxLength: 32768', `maxLength: ${max}`)
    .replace(
      /(\n(\s+)error:\n\s+type: string\n)/,
      (whole, _line, indent: string) => `${whole}${indent}  maxLength: ${max}\n`,
    );
  expect(tight).not.toBe(chart);
  expect(tight.match(new RegExp(`maxLength: ${max}\\n`, 'g'))).toHaveLength(2);
  const path = join(tmpdir(), `pod-bouncer-crd-${process.pid}-${max}.yaml`);
  await writeFile(path, tight);
  return path;
}

describe('a status write the API server refuses', () => {
  let h: Harness;
  let prom: FakePrometheus;

  beforeAll(async () => {
    // Its Gated message does not fit this cluster's CRD.
    ({ h, prom } = await startGatedOnePod('status-refused', NS, `Mesh${'x'.repeat(300)}`, {
      crdPath: await tighterCrd(120),
    }));
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
  });

  it('ends the run FAILED, saying the status was refused', async () => {
    expect((await h.post({ directive: { namespace: NS, name: 'certs' } })).status).toBe(202);
    const failed = await waitForState(h, NS, 'certs', 'FAILED');
    expect(failed.status.error).toMatch(/^selector 0: the status was refused by the API server/);
    const stalled = failed.status.conditions.find((c: any) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', message: failed.status.error });
    expect(h.sim.deletedPods()).toEqual([]);
  });
});
