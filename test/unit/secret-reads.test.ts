// rootCertSync's Secret reads are shared by the jobs that ask at about the same time, never with a
// job whose run was accepted after the read began.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf } from '../../src/workflow/wakeups.js';
import { SecretReads } from '../../src/workflow/secret-reads.js';
import { startStatusFixture, type StatusFixture } from '../support/status-fixture.js';

describe('SecretReads', () => {
  let fixture: StatusFixture;
  beforeAll(async () => {
    fixture = await startStatusFixture(5);
  });
  afterAll(async () => fixture.close());

  it('reads once for the jobs that ask together, again for a run accepted after the read began', async () => {
    const { sim, kube } = fixture;
    sim.putSecret('istio-system', 'cacerts', { 'root-cert.pem': 'ROOT 1' });
    const reads = new SecretReads(kube);
    const ref = { namespace: 'istio-system', name: 'cacerts' };
    const secretGets = () => sim.requests().filter((r) => r.resource === 'secrets').length;
    sim.resetRequests();
    const accepted = Date.now() - 1000;
    const digests = await Promise.all(
      Array.from({ length: 20 }, () => reads.digest(ref, 'root-cert.pem', accepted)),
    );
    expect(new Set(digests)).toEqual(new Set([digestOf(Buffer.from('ROOT 1'))]));
    expect(secretGets()).toBe(1);
    // A run accepted after that read began may have been told of a newer root: it reads again.
    sim.putSecret('istio-system', 'cacerts', { 'root-cert.pem': 'ROOT 2' });
    const later = await reads.digest(ref, 'root-cert.pem', Date.now());
    expect(later).toBe(digestOf(Buffer.from('ROOT 2')));
    expect(secretGets()).toBe(2);
    // Absent is an answer too, shared the same way; it is "not yet" for rootCertSync.
    expect(await reads.digest({ ...ref, name: 'missing' }, 'root-cert.pem', accepted)).toBe(
      undefined,
    );
  });
});
