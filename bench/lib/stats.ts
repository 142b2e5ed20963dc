/** Percentile by nearest rank over a copy of the values (ms). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** One printed line per figure: name, value, unit, target, ratio to the baseline. */
export function line(name: string, value: number, unit: string, note = ''): string {
  return `  ${name.padEnd(34)} ${String(round(value)).padStart(10)} ${unit.padEnd(8)} ${note}`;
}
