/**
 * Windows: open only inside one of them, by the wall clock of each window's zone, so that a
 * window keeps its local hours across daylight-saving changes (a 02:30 that a spring-forward night
 * skips never comes; an hour a fall-back night repeats is inside twice).
 */

import { DAYS, type Day, type GateWindow } from './types.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when `timeZone` is an IANA zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The weekday and minute of the day at `at` on the wall clock of `timeZone`. */
export function wallClock(at: Date, timeZone: string): { day: Day; minute: number } {
  const parts = formatterOf(timeZone).formatToParts(at);
  const part = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return {
    day: part('weekday') as Day,
    minute: Number(part('hour')) * 60 + Number(part('minute')),
  };
}

/** `HH:MM` as minutes of the day; `24:00` is 1440 (an end only); undefined when malformed. */
export function minuteOf(text: string, allowEndOfDay = false): number | undefined {
  const match = /^([01]\d|2[0-4]):([0-5]\d)$/.exec(text);
  if (match === null) return undefined;
  const minute = Number(match[1]) * 60 + Number(match[2]);
  if (minute > 1440 || (minute === 1440 && !allowEndOfDay)) return undefined;
  return minute;
}

function previousDay(day: Day): Day {
  return DAYS[(DAYS.indexOf(day) + 6) % 7]!;
}

/** Whether `at` falls inside the window (end exclusive; an end before the start crosses midnight). */
export function insideWindow(window: GateWindow, at: Date): boolean {
  const start = minuteOf(window.start) ?? 0;
  const end = minuteOf(window.end, true) ?? 0;
  const days = window.days ?? DAYS;
  const { day, minute } = wallClock(at, window.timeZone ?? 'UTC');
  if (start < end) return days.includes(day) && minute >= start && minute < end;
  // Crosses midnight: the evening of an opening day, or the early hours after one.
  return (
    (days.includes(day) && minute >= start) || (days.includes(previousDay(day)) && minute < end)
  );
}

export function insideAnyWindow(windows: readonly GateWindow[], at: Date): boolean {
  return windows.some((window) => insideWindow(window, at));
}

/** What is wrong with a window, or undefined when it is well-formed. */
export function windowProblem(window: GateWindow): string | undefined {
  const start = minuteOf(window.start);
  const end = minuteOf(window.end, true);
  if (start === undefined) return `start "${window.start}" must be HH:MM from 00:00 to 23:59`;
  if (end === undefined) return `end "${window.end}" must be HH:MM from 00:00 to 24:00`;
  if (start === end) return `start and end are both ${window.start}: the window would be empty`;
  for (const day of window.days ?? []) {
    if (!DAYS.includes(day)) return `day "${day}" must be one of ${DAYS.join(', ')}`;
  }
  if (window.days !== undefined && window.days.length === 0)
    return 'days must name at least one day';
  if (window.timeZone !== undefined && !isTimeZone(window.timeZone)) {
    return `time zone "${window.timeZone}" is not an IANA zone`;
  }
  return undefined;
}

/** `Mon`, or a range `Mon-Fri` (wrapping: `Sat-Mon`), as the days it names. */
function daysOf(text: string): Day[] | undefined {
  const days: Day[] = [];
  for (const item of text.split(',')) {
    const [from, to] = item.split('-') as [string, string | undefined];
    const first = DAYS.indexOf(from as Day);
    const last = to === undefined ? first : DAYS.indexOf(to as Day);
    if (first < 0 || last < 0) return undefined;
    for (let i = first; ; i = (i + 1) % 7) {
      if (!days.includes(DAYS[i]!)) days.push(DAYS[i]!);
      if (i === last) break;
    }
  }
  return days;
}

/**
 * GATE_WINDOWS in text: `Mon-Fri 02:00-05:00 Europe/Berlin; Sat,Sun 00:00-24:00` (days optional:
 * every day; zone optional: UTC). Throws an Error with one sentence naming the part that is wrong.
 */
export function parseWindowsText(text: string): GateWindow[] {
  const windows: GateWindow[] = [];
  for (const entry of text.split(';').map((each) => each.trim())) {
    if (entry === '') continue;
    const words = entry.split(/\s+/);
    const hoursAt = words.findIndex((word) => /^\d{2}:\d{2}-\d{2}:\d{2}$/.test(word));
    if (hoursAt < 0 || hoursAt > 1 || words.length > hoursAt + 2) {
      throw new Error(`"${entry}" must be [days] HH:MM-HH:MM [time zone]`);
    }
    const [start, end] = words[hoursAt]!.split('-') as [string, string];
    const window: GateWindow = { start, end };
    if (hoursAt === 1) {
      const days = daysOf(words[0]!);
      if (days === undefined)
        throw new Error(`"${words[0]}" must name days such as Mon-Fri or Sat,Sun`);
      window.days = days;
    }
    if (words[hoursAt + 1] !== undefined) window.timeZone = words[hoursAt + 1]!;
    const problem = windowProblem(window);
    if (problem !== undefined) throw new Error(`"${entry}": ${problem}`);
    windows.push(window);
  }
  if (windows.length === 0) throw new Error('it names no window');
  return windows;
}
