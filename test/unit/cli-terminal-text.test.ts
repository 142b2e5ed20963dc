import { describe, expect, it } from 'vitest';
import { plainJson, plainText } from '../../src/cli/terminal-text.js';

describe('server strings made plain for the terminal', () => {
  it.each([
    ['a window title (OSC, BEL)', 'a\x1b]0;owned\x07b', 'ab'],
    ['a clipboard write (OSC 52, ST)', 'a\x1b]52;c;Y2xpcA==\x1b\\b', 'ab'],
    ['an unterminated OSC', 'a\x1b]0;owned', 'a'],
    ['clear screen and home', 'a\x1b[2J\x1b[Hb', 'ab'],
    ['cursor up, carriage return: a line rewritten', 'ok\x1b[1A\rFINISHED', 'ok FINISHED'],
    ['colours', '\x1b[31;1mred\x1b[0m', 'red'],
    ['8-bit CSI and OSC', 'a\u009b2Jb\u009d0;t\u009cc', 'abc'],
    ['DCS and APC strings', 'a\x1bPq#0\x1b\\b\x1b_x\x1b\\c', 'abc'],
    ['a charset change and a reset', 'a\x1b(0b\x1bcc', 'abc'],
    ['newlines and tabs', 'a\nb\tc\r\nd', 'a b c  d'],
    ['NUL, BEL, DEL and C1', 'a\x00\x07\x7f\u0085\u0099b', 'ab'],
    ['bidirectional overrides', 'a\u202eb\u2066c', 'abc'],
  ])('removes %s', (_what, given, shown) => {
    expect(plainText(given)).toBe(shown);
  });

  it('keeps what is printable, other scripts and the status bars included', () => {
    const text = 'mesh/certs  BOUNCING_PODS — selector 1/2 ██░░ ready 1/2 é 日本';
    expect(plainText(text)).toBe(text);
  });

  it('makes every string of an answer plain, keys included', () => {
    expect(plainJson({ 'k\x1b[2Jey': ['\x1b]0;t\x07v', 1, null, { n: '\u0085x' }] })).toEqual({
      key: ['v', 1, null, { n: 'x' }],
    });
  });

  it('takes linear time on a long unterminated sequence', () => {
    const hostile = '\x1b['.repeat(200_000) + '\x1b]'.repeat(200_000);
    const started = performance.now();
    expect(plainText(hostile)).toBe('');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
