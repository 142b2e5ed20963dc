// Windows gates by the wall clock of their zone: days, HH:MM bounds crossing midnight, IANA zones
// across daylight-saving changes, and GATE_WINDOWS in text form.
import { describe, expect, it } from 'vitest';

import {
  insideAnyWindow,
  insideWindow,
  parseWindowsText,
  windowProblem,
} from '../../src/gates/windows.js';
import { checkGates } from '../../src/gates/validate.js';

const at = (iso: string): Date => new Date(iso);

describe('a window', () => {
  const nights = {
    days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
    start: '02:00',
    end: '05:00',
    timeZone: 'Europe/Berlin',
  } as const;

  it('is open from its start until its end (exclusive), on its days, in its zone', () => {
    const window = { ...nights, days: [...nights.days] };
    // Wednesday 2026-12-02, Berlin is UTC+1 in winter.
    expect(insideWindow(window, at('2026-12-02T00:59:59Z'))).toBe(false);
    expect(insideWindow(window, at('2026-12-02T01:00:00Z'))).toBe(true);
    expect(insideWindow(window, at('2026-12-02T03:59:59Z'))).toBe(true);
    expect(insideWindow(window, at('2026-12-02T04:00:00Z'))).toBe(false);
    // Saturday: not one of its days.
    expect(insideWindow(window, at('2026-12-05T02:00:00Z'))).toBe(false);
  });

  it('crosses midnight when its end comes before its start, counting the day it opens', () => {
    const window = { days: ['Fri' as const], start: '22:00', end: '02:00' };
    expect(insideWindow(window, at('2026-12-04T21:59:00Z'))).toBe(false); // Fri
    expect(insideWindow(window, at('2026-12-04T23:30:00Z'))).toBe(true); // Fri night
    expect(insideWindow(window, at('2026-12-05T01:59:00Z'))).toBe(true); // Sat early, opened Fri
    expect(insideWindow(window, at('2026-12-05T02:00:00Z'))).toBe(false);
    expect(insideWindow(window, at('2026-12-05T23:00:00Z'))).toBe(false); // Sat night: not a Fri
    expect(insideWindow({ start: '00:00', end: '24:00' }, at('2026-12-05T23:59:59Z'))).toBe(true);
  });

  it('keeps its local hours across daylight-saving changes', () => {
    // Europe/Berlin leaves summer time on Sunday 2026-10-25 at 03:00 CEST (01:00 UTC), back to 02:00.
    const early = { start: '01:00', end: '04:00', timeZone: 'Europe/Berlin' };
    expect(insideWindow(early, at('2026-10-24T23:00:00Z'))).toBe(true); // 01:00 CEST
    expect(insideWindow(early, at('2026-10-25T00:30:00Z'))).toBe(true); // 02:30 CEST
    expect(insideWindow(early, at('2026-10-25T01:30:00Z'))).toBe(true); // 02:30 CET, the repeat
    expect(insideWindow(early, at('2026-10-25T02:59:00Z'))).toBe(true); // 03:59 CET
    expect(insideWindow(early, at('2026-10-25T03:00:00Z'))).toBe(false); // 04:00 CET
    // It enters summer time on Sunday 2026-03-29: 02:00 CET becomes 03:00 CEST at 01:00 UTC.
    const skipped = { start: '02:00', end: '03:00', timeZone: 'Europe/Berlin' };
    expect(insideWindow(skipped, at('2026-03-29T00:59:00Z'))).toBe(false); // 01:59 CET
    expect(insideWindow(skipped, at('2026-03-29T01:00:00Z'))).toBe(false); // 03:00 CEST: skipped hour
    expect(insideWindow(skipped, at('2026-03-30T00:30:00Z'))).toBe(true); // Monday 02:30 CEST
    // In UTC the same hours stay put.
    expect(insideWindow({ start: '02:00', end: '03:00' }, at('2026-03-29T02:30:00Z'))).toBe(true);
  });

  it('is open when any of the windows is', () => {
    const windows = [
      { days: ['Sat' as const], start: '00:00', end: '24:00' },
      { start: '12:00', end: '13:00', timeZone: 'America/New_York' },
    ];
    expect(insideAnyWindow(windows, at('2026-12-05T10:00:00Z'))).toBe(true);
    expect(insideAnyWindow(windows, at('2026-12-02T17:30:00Z'))).toBe(true); // 12:30 EST
    expect(insideAnyWindow(windows, at('2026-12-02T12:30:00Z'))).toBe(false);
  });

  it('says what is malformed', () => {
    expect(windowProblem({ start: '24:00', end: '05:00' })).toMatch(/start "24:00"/);
    expect(windowProblem({ start: '02:00', end: '25:00' })).toMatch(/end "25:00"/);
    expect(windowProblem({ start: '02:00', end: '02:00' })).toMatch(/empty/);
    expect(windowProblem({ start: '2:00', end: '05:00' })).toMatch(/HH:MM/);
    expect(windowProblem({ start: '02:00', end: '05:00', timeZone: 'Mars/Olympus' })).toMatch(
      /IANA/,
    );
    expect(
      windowProblem({ days: ['Fri', 'Caturday' as 'Fri'], start: '02:00', end: '05:00' }),
    ).toMatch(/Caturday/);
    expect(windowProblem({ start: '02:00', end: '24:00' })).toBeUndefined();
  });
});

describe('GATE_WINDOWS in text', () => {
  it('reads days, ranges, hours and zones', () => {
    expect(parseWindowsText('Mon-Fri 02:00-05:00 Europe/Berlin; Sat,Sun 00:00-24:00')).toEqual([
      {
        days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
        start: '02:00',
        end: '05:00',
        timeZone: 'Europe/Berlin',
      },
      { days: ['Sat', 'Sun'], start: '00:00', end: '24:00' },
    ]);
    expect(parseWindowsText('22:00-02:00')).toEqual([{ start: '22:00', end: '02:00' }]);
    expect(parseWindowsText('Sat-Mon 01:00-02:00 UTC')[0]?.days).toEqual(['Sat', 'Sun', 'Mon']);
  });

  it('refuses what it cannot read, naming the part', () => {
    expect(() => parseWindowsText('weekdays 02:00-05:00')).toThrow(/"weekdays"/);
    expect(() => parseWindowsText('Mon 02:00')).toThrow(/\[days\] HH:MM-HH:MM/);
    expect(() => parseWindowsText('Mon 02:00-05:00 Nowhere/Town')).toThrow(/IANA/);
    expect(() => parseWindowsText(' ; ')).toThrow(/no window/);
  });
});

describe('spec.gates', () => {
  const problems = (gates: unknown) => {
    const found: Array<{ field: string; message: string }> = [];
    checkGates(gates, 'spec.gates', found);
    return found;
  };

  it('accepts the three kinds', () => {
    expect(
      problems([
        { alerts: 'IstioHigh5xxRate|KubePodCrashLooping' },
        { query: 'sum(rate(x[2m]))', max: 0.01 },
        { windows: [{ days: ['Mon'], start: '02:00', end: '05:00', timeZone: 'Europe/Berlin' }] },
      ]),
    ).toEqual([]);
  });

  it('names the field of each malformed gate', () => {
    expect(problems([{ alerts: '(' }])).toEqual([
      {
        field: 'spec.gates[0].alerts',
        message: expect.stringMatching(/not an RE2 regular expression/),
      },
    ]);
    expect(problems([{ query: 'up' }])[0]).toMatchObject({
      field: 'spec.gates[0]',
      message: expect.stringMatching(/max, min/),
    });
    expect(problems([{ query: 'up', max: 'x' }])[0]?.field).toBe('spec.gates[0].max');
    expect(problems([{ query: 'up', min: 2, max: 1 }])[0]?.message).toMatch(/above max/);
    expect(problems([{ alerts: 'A', query: 'up' }])[0]?.message).toMatch(/exactly one/);
    expect(problems([{ windows: [{ start: '02:00', end: '99:00' }] }])[0]?.field).toBe(
      'spec.gates[0].windows[0]',
    );
    expect(problems({ alerts: 'A' })[0]?.field).toBe('spec.gates');
  });
});
