/**
 * `maxUnavailable`, as a selector or DEFAULT_MAX_UNAVAILABLE spells it: a whole number >= 1, or a
 * percentage "N%" (1 to 100) of the pods a selector chose.
 */
export type MaxUnavailable = { count: number } | { percent: number };

/** The parsed value, or undefined when it is neither an integer >= 1 nor "N%" with 1 <= N <= 100. */
export function parseMaxUnavailable(value: unknown): MaxUnavailable | undefined {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 1 ? { count: value } : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{1,3})%$/.exec(value.trim());
  if (match?.[1] === undefined) return undefined;
  const percent = Number(match[1]);
  return percent >= 1 && percent <= 100 ? { percent } : undefined;
}

/**
 * How many of `chosen` pods may be down at once: a count as is, a percentage of the chosen pods
 * rounded down; at least 1 whatever the numbers (a selector always makes progress).
 */
export function resolveMaxUnavailable(value: MaxUnavailable, chosen: number): number {
  const raw = 'count' in value ? value.count : Math.floor((chosen * value.percent) / 100);
  return Math.max(1, raw);
}
