import { describe, expect, it } from 'vitest';
import { BadEventError, InvalidDirectiveError } from '../../src/events/errors.js';
import { normalizeBody } from '../../src/events/normalize.js';

const manifest = (podsToBounce: unknown) => ({
  apiVersion: 'internal.gloo.solo.io/v2',
  kind: 'PodBounceDirective',
  metadata: { namespace: 'istio-system', name: 'certs' },
  spec: { podsToBounce },
});

describe('normalizeBody', () => {
  it('reads a native reference with issuedAt', () => {
    const event = normalizeBody({
      directive: { namespace: 'istio-system', name: 'certs' },
      issuedAt: '2026-11-29T12:00:00Z',
    });
    expect(event).toEqual({
      kind: 'reference',
      ref: { namespace: 'istio-system', name: 'certs' },
      issuedAt: new Date('2026-11-29T12:00:00Z'),
      shape: 'native-reference',
    });
  });

  it('reads an inline directive and stores list labels as a map with defaults filled', () => {
    const event = normalizeBody({
      directive: manifest([{ namespace: 'bookinfo', labels: [{ key: 'app', value: 'reviews' }] }]),
    });
    expect(event.kind).toBe('inline');
    if (event.kind !== 'inline') return;
    expect(event.manifest.spec.podsToBounce).toEqual([
      { namespace: 'bookinfo', labels: { app: 'reviews' }, waitForReplicas: 0 },
    ]);
  });

  it('refuses list labels that give a key twice, naming the entry and the key', () => {
    const labels = [
      { key: 'app', value: 'a' },
      { key: 'tier', value: 'x' },
      { key: 'app', value: 'web' },
    ];
    const body = { directive: manifest([{ namespace: 'a' }, { namespace: 'b', labels }]) };
    expect(() => normalizeBody(body)).toThrow(
      new BadEventError(
        'directive.spec.podsToBounce[1].labels[2].key',
        'repeats the label key "app" of directive.spec.podsToBounce[1].labels[0]; give each key once',
      ),
    );
  });

  it('rejects an empty podsToBounce as an invalid directive', () => {
    expect(() => normalizeBody({ directive: manifest([]) })).toThrow(InvalidDirectiveError);
  });

  it.each([
    [{ app: 'a,b!=c' }, 'spec.podsToBounce[0].labels.app'],
    [{ 'bad key!': 'x' }, 'spec.podsToBounce[0].labels.bad key!'],
    [{ app: 'x'.repeat(64) }, 'spec.podsToBounce[0].labels.app'],
  ])('rejects label syntax that could widen a selector: %j', (labels, field) => {
    try {
      normalizeBody({ directive: manifest([{ namespace: 'bookinfo', labels }]) });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidDirectiveError);
      expect((error as InvalidDirectiveError).problems[0]?.field).toBe(field);
    }
  });

  it('rejects a negative or fractional waitForReplicas', () => {
    expect(() =>
      normalizeBody({ directive: manifest([{ namespace: 'a', waitForReplicas: -1 }]) }),
    ).toThrow(InvalidDirectiveError);
    expect(() =>
      normalizeBody({ directive: manifest([{ namespace: 'a', waitForReplicas: 1.5 }]) }),
    ).toThrow(InvalidDirectiveError);
  });

  it('names the field of a malformed reference', () => {
    expect(() => normalizeBody({ directive: { namespace: 'istio-system' } })).toThrow(
      /directive\.name/,
    );
    expect(() => normalizeBody({ directive: 'istio-system/certs' })).toThrow(BadEventError);
    expect(() =>
      normalizeBody({ directive: { namespace: 'a', name: 'b' }, issuedAt: 'soon' }),
    ).toThrow(/issuedAt/);
    expect(() => normalizeBody([1, 2])).toThrow(/body/);
  });

  it('reads watch events and bare objects as references, and ignores DELETED', () => {
    const object = {
      ...manifest([{ namespace: 'a' }]),
      metadata: { namespace: 'istio-system', name: 'certs', uid: 'u1' },
    };
    expect(normalizeBody({ type: 'MODIFIED', object })).toMatchObject({
      kind: 'reference',
      ref: { name: 'certs' },
      shape: 'watch-event',
    });
    expect(normalizeBody(object)).toMatchObject({ kind: 'reference', shape: 'directive-object' });
    expect(normalizeBody({ type: 'DELETED', object })).toMatchObject({ kind: 'ignored' });
  });

  it('reads a Kubernetes Event about a directive and ignores events about other kinds', () => {
    const event = {
      kind: 'Event',
      involvedObject: { kind: 'PodBounceDirective', namespace: 'istio-system', name: 'certs' },
      firstTimestamp: '2026-11-29T12:00:00Z',
    };
    expect(normalizeBody(event)).toMatchObject({
      kind: 'reference',
      issuedAt: new Date('2026-11-29T12:00:00Z'),
    });
    expect(
      normalizeBody({ ...event, involvedObject: { kind: 'Pod', namespace: 'a', name: 'b' } }),
    ).toMatchObject({ kind: 'ignored' });
  });

  it("ignores pod-bouncer's own Events however the name is spelled, so an exporter cannot loop", () => {
    const about = { kind: 'PodBounceDirective', namespace: 'istio-system', name: 'certs' };
    for (const spelling of ['pod-bouncer', 'Pod-Bouncer', ' pod-bouncer ', 'POD-BOUNCER']) {
      for (const field of [
        { reportingController: spelling },
        { reportingComponent: spelling },
        { source: { component: spelling } },
      ]) {
        const event = normalizeBody({
          kind: 'Event',
          involvedObject: about,
          reason: 'Finished',
          ...field,
        });
        expect(event.kind, `${JSON.stringify(field)}`).toBe('ignored');
      }
    }
    expect(
      normalizeBody({ kind: 'Event', involvedObject: about, reportingController: 'pod-bouncer-x' })
        .kind,
    ).toBe('reference');
  });

  it('unwraps an Argo Events envelope', () => {
    const body = {
      context: { id: '1', source: 'webhook' },
      data: { body: { directive: { namespace: 'istio-system', name: 'certs' } } },
    };
    expect(normalizeBody(body)).toMatchObject({ kind: 'reference', shape: 'argo-envelope' });
  });
});
