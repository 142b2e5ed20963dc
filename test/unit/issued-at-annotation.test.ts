import { describe, expect, it } from 'vitest';
import { annotatedIssuance, describedByStatus } from '../../src/events/issued-at.js';
import { ISSUED_AT_ANNOTATION, type Directive } from '../../src/directive/types.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

function directiveWith(annotation: string | undefined, status: Directive['status']): Directive {
  return {
    apiVersion: 'internal.gloo.solo.io/v2',
    kind: 'PodBounceDirective',
    metadata: {
      namespace: 'istio-system',
      name: 'mesh-certs',
      uid: 'u1',
      generation: 3,
      resourceVersion: '7',
      ...(annotation === undefined ? {} : { annotations: { [ISSUED_AT_ANNOTATION]: annotation } }),
    },
    spec: { podsToBounce: [{ namespace: 'istio-system', labels: {} }] },
    ...(status === undefined ? {} : { status }),
  } as Directive;
}

describe('the issued-at annotation', () => {
  it('names an instant, one up to 5 minutes ahead as the moment it is read', () => {
    expect(annotatedIssuance(directiveWith(undefined, undefined), NOW)).toEqual({ kind: 'none' });
    expect(annotatedIssuance(directiveWith('2026-11-29T11:00:00Z', undefined), NOW)).toEqual({
      kind: 'issued',
      issuedAt: new Date('2026-11-29T11:00:00Z'),
    });
    expect(annotatedIssuance(directiveWith('2026-11-29T12:04:00Z', undefined), NOW)).toEqual({
      kind: 'issued',
      issuedAt: new Date(NOW),
      sentIssuedAt: new Date('2026-11-29T12:04:00Z'),
    });
  });

  it('is invalid when it is no real instant or more than 5 minutes ahead, and says why', () => {
    for (const value of ['2026-02-31T00:00:00Z', 'tomorrow', '', '2026-11-29T24:00:00Z']) {
      expect(annotatedIssuance(directiveWith(value, undefined), NOW)).toMatchObject({
        kind: 'invalid',
        value,
        why: expect.stringMatching(/RFC 3339/),
      });
    }
    expect(annotatedIssuance(directiveWith('2026-11-29T12:06:00Z', undefined), NOW)).toMatchObject({
      kind: 'invalid',
      why: 'is more than 5 minutes in the future',
    });
  });
});

describe('a status that already describes the directive', () => {
  const at = (issuedAt?: string) => ({
    observedGeneration: 3,
    state: 'FINISHED' as const,
    ...(issuedAt === undefined ? {} : { issuedAt }),
  });

  it('describes its generation, whoever wrote it, unless the annotation is later', () => {
    expect(describedByStatus(directiveWith(undefined, at()), NOW)).toBe(true);
    expect(describedByStatus(directiveWith(undefined, undefined), NOW)).toBe(false);
    expect(
      describedByStatus(directiveWith(undefined, { ...at(), observedGeneration: 2 }), NOW),
    ).toBe(false);
    const issued = '2026-11-29T11:00:00Z';
    expect(describedByStatus(directiveWith(issued, at('2026-11-29T11:00:00.000Z')), NOW)).toBe(
      true,
    );
    expect(describedByStatus(directiveWith(issued, at('2026-11-29T11:30:00Z')), NOW)).toBe(true);
    expect(describedByStatus(directiveWith(issued, at('2026-11-29T10:00:00Z')), NOW)).toBe(false);
    // A run without an issuedAt is older than any annotation.
    expect(describedByStatus(directiveWith(issued, at()), NOW)).toBe(false);
  });

  it('is not unsettled by an annotation that cannot name an issuance', () => {
    expect(describedByStatus(directiveWith('tomorrow', at()), NOW)).toBe(true);
  });
});
