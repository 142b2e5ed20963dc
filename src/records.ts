/** A JSON object (not null, not an array): the first check on any untrusted body or object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
