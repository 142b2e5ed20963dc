import { describe, expect, it } from 'vitest';
import { cloudEventMode, normalizeCloudEvent } from '../../src/events/cloudevent.js';
import { BadEventError } from '../../src/events/errors.js';

const ref = { directive: { namespace: 'istio-system', name: 'mesh-certs' } };
const binary = {
  'content-type': 'application/json',
  'ce-specversion': '1.0',
  'ce-id': '42',
  'ce-source': '/cert-agent',
  'ce-type': 'anything.at.all',
};

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof BadEventError) return error.field;
    throw error;
  }
  return undefined;
}

describe('normalizeCloudEvent', () => {
  it('detects the mode from headers', () => {
    expect(cloudEventMode(binary)).toBe('binary');
    expect(cloudEventMode({ 'content-type': 'application/cloudevents+json; charset=utf-8' })).toBe(
      'structured',
    );
    expect(cloudEventMode({ 'content-type': 'application/json' })).toBeUndefined();
  });

  it('uses time only when the data has no issuedAt, and never invents one', () => {
    const withTime = normalizeCloudEvent(
      'binary',
      { ...binary, 'ce-time': '2026-11-29T12:00:00Z' },
      ref,
    );
    expect(withTime.event).toMatchObject({ kind: 'reference', shape: 'cloudevent' });
    expect((withTime.event as any).issuedAt.toISOString()).toBe('2026-11-29T12:00:00.000Z');
    expect(withTime.identity).toEqual({ source: '/cert-agent', id: '42' });

    const own = normalizeCloudEvent(
      'binary',
      { ...binary, 'ce-time': '2026-11-29T12:00:00Z' },
      { ...ref, issuedAt: '2026-11-01T00:00:00Z' },
    );
    expect((own.event as any).issuedAt.toISOString()).toBe('2026-11-01T00:00:00.000Z');

    // The SDK fills a missing time with "now"; that must not become an issuedAt.
    const none = normalizeCloudEvent('binary', binary, ref);
    expect((none.event as any).issuedAt).toBeUndefined();
  });

  it('reads a PodBounceDirective in structured mode as a reference', () => {
    const { event } = normalizeCloudEvent(
      'structured',
      { 'content-type': 'application/cloudevents+json' },
      {
        specversion: '1.0',
        id: 'x',
        source: '/s',
        type: 't',
        data: {
          apiVersion: 'internal.gloo.solo.io/v2',
          kind: 'PodBounceDirective',
          metadata: { namespace: 'istio-system', name: 'mesh-certs', generation: 4 },
          spec: { podsToBounce: [] },
        },
      },
    );
    expect(event).toEqual({
      kind: 'reference',
      ref: { namespace: 'istio-system', name: 'mesh-certs' },
      seen: { generation: 4 },
      shape: 'cloudevent',
    });
  });

  it('names the attribute of an invalid event', () => {
    const structured = { 'content-type': 'application/cloudevents+json' };
    const base = { specversion: '1.0', id: 'x', source: '/s', type: 't', data: ref };
    const without = (key: keyof typeof base) =>
      Object.fromEntries(Object.entries(base).filter(([name]) => name !== key));
    const noId = without('id');
    const noType = without('type');
    expect(fieldOf(() => normalizeCloudEvent('structured', structured, noId))).toBe('id');
    expect(fieldOf(() => normalizeCloudEvent('structured', structured, noType))).toBe('type');
    expect(
      fieldOf(() => normalizeCloudEvent('structured', structured, { ...base, specversion: '0.3' })),
    ).toBe('specversion');
    expect(
      fieldOf(() => normalizeCloudEvent('structured', structured, { ...base, time: 'now' })),
    ).toBe('time');
    const long = 'x'.repeat(1025);
    expect(
      fieldOf(() => normalizeCloudEvent('structured', structured, { ...base, id: long })),
    ).toBe('id');
    expect(
      fieldOf(() => normalizeCloudEvent('structured', structured, { ...base, source: long })),
    ).toBe('source');
    expect(fieldOf(() => normalizeCloudEvent('binary', { ...binary, 'ce-id': long }, ref))).toBe(
      'ce-id',
    );
    expect(
      fieldOf(() => normalizeCloudEvent('structured', structured, { ...base, id: long.slice(1) })),
    ).toBeUndefined();
    expect(
      fieldOf(() => normalizeCloudEvent('structured', structured, { ...base, data: 'text' })),
    ).toBe('data');
    expect(
      fieldOf(() =>
        normalizeCloudEvent('structured', structured, { ...base, data: { directive: {} } }),
      ),
    ).toBe('data.directive.namespace');
    const noSource = Object.fromEntries(
      Object.entries(binary).filter(([name]) => name !== 'ce-source'),
    );
    expect(fieldOf(() => normalizeCloudEvent('binary', noSource, ref))).toBe('ce-source');
  });
});
