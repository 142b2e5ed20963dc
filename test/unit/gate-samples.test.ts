import { describe, expect, it } from 'vitest';
import { PrometheusError, sampleValue } from '../../src/gates/prometheus.js';

/** Prometheus writes sample values with Go's strconv.FormatFloat; nothing else is a number. */
describe('a sample value', () => {
  it('is read in the forms Prometheus writes', () => {
    const cases: Array<[string, number]> = [
      ['0', 0],
      ['-0', -0],
      ['0.001', 0.001],
      ['-12.5', -12.5],
      ['1e-07', 1e-7],
      ['1.5e+21', 1.5e21],
      ['+Inf', Infinity],
      ['-Inf', -Infinity],
    ];
    for (const [text, value] of cases) expect(sampleValue(text), text).toBe(value);
    expect(sampleValue('NaN')).toBeNaN();
  });

  it('is refused in any other form, which keeps the gate closed', () => {
    const texts: unknown[] = ['', ' 0.001', '0.001 ', '0x0', '0b1', 'Infinity', 'inf', '+1'];
    texts.push('.5', '5.', '1E5', '1_000', 'nan', 0.5, null, undefined, ['1']);
    for (const text of texts) {
      expect(() => sampleValue(text), JSON.stringify(text)).toThrow(PrometheusError);
    }
    expect(() => sampleValue('0x0')).toThrow(
      new PrometheusError('Prometheus answered a malformed sample value: "0x0"'),
    );
    expect(() => sampleValue(undefined)).toThrow(
      new PrometheusError('Prometheus answered a malformed sample value: nothing'),
    );
  });
});
