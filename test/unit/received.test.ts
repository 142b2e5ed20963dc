import { describe, expect, it } from 'vitest';
import type { CertIssued } from '../../src/events/cert-issued.js';
import { asReceived } from '../../src/events/received.js';

const reference = (issuedAt?: Date): CertIssued => ({
  kind: 'reference',
  ref: { namespace: 'istio-system', name: 'certs' },
  ...(issuedAt === undefined ? {} : { issuedAt }),
  shape: 'native-reference',
});

describe('asReceived', () => {
  const receivedAt = Date.parse('2026-11-29T12:00:00.250Z');

  it('counts an issuedAt ahead of the clock as the moment received, keeping the value sent', () => {
    const sent = new Date('2026-11-29T12:04:50Z');
    expect(asReceived(reference(sent), receivedAt)).toEqual({
      ...reference(new Date(receivedAt)),
      sentIssuedAt: sent,
    });
  });

  it('leaves an issuedAt at or before the moment received, none, and ignored events alone', () => {
    for (const event of [
      reference(new Date(receivedAt)),
      reference(new Date(receivedAt - 60_000)),
      reference(),
      { kind: 'ignored', reason: 'not ours', shape: 'kubernetes-event' } as const,
    ]) {
      expect(asReceived(event, receivedAt)).toBe(event);
    }
  });
});
