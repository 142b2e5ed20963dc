import { describe, expect, it } from 'vitest';
import fc from 'fast-check';

import { boundedText } from '../../src/bounded-text.js';

/** A half of a surrogate pair on its own: what a cut inside a pair leaves. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

describe('boundedText', () => {
  it('keeps a text that fits as it is', () => {
    expect(boundedText('firing: MeshBroken', 1024)).toBe('firing: MeshBroken');
    expect(boundedText('é'.repeat(512), 1024)).toBe('é'.repeat(512));
  });

  it('cuts a longer text to the byte budget with a mark, never inside a surrogate pair', () => {
    const cut = boundedText(`a${'\u{1F525}'.repeat(1000)}`, 1024);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut).not.toMatch(LONE_SURROGATE);
    expect(Buffer.byteLength(cut)).toBe(1 + 4 * 255 + 3);
  });

  it('fits the budget and keeps a whole-character prefix of whatever it is given', () => {
    const texts = fc.string({ unit: 'grapheme', maxLength: 600 });
    fc.assert(
      fc.property(texts, fc.integer({ min: 8, max: 900 }), (text, max) => {
        const cut = boundedText(text, max);
        expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(max);
        expect(cut === text || text.startsWith(cut.slice(0, -1))).toBe(true);
        expect(cut).not.toMatch(LONE_SURROGATE);
      }),
    );
  });
});
