/**
 * Text from elsewhere made safe to show on one line. A string from outside (a status message, an
 * error, an alert name from Prometheus) reaches someone's terminal (`kubectl get`, the CLI, a
 * chat notification), which obeys the control characters in it: an escape sequence can retitle
 * the window, clear the screen, move the cursor up to rewrite a line already printed, or write
 * the clipboard; a bidi override makes the text read otherwise than it is. So such a string loses
 * them before it is stored (gates/judge.ts) or printed (the CLI).
 */

/** CSI sequences, 7-bit (ESC [) and 8-bit (U+009B): parameters, intermediates, a final byte. */
const CSI = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?/g;
/**
 * Control strings (OSC, DCS, SOS, PM, APC), 7-bit and 8-bit, with their payload (a title, a
 * clipboard write) up to BEL or ST, or to the end when unterminated.
 */
const CONTROL_STRING = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)/g;
/** Any other escape: ESC, intermediates, a final byte (charset changes, resets, …). */
const ESCAPE = /\x1b[\x20-\x2f]*[\x30-\x7e]?/g;
/** Breaks that would start a new line where none is expected. */
const BREAKS = /[\t\n\v\f\r\u2028\u2029]/g;
/** What is left of C0, DEL and C1, and the bidirectional overrides that reorder what is shown. */
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** A string made safe to show on one line: control sequences removed, breaks as spaces. */
export function plainText(value: string): string {
  return value
    .replace(CONTROL_STRING, '')
    .replace(CSI, '')
    .replace(ESCAPE, '')
    .replace(BREAKS, ' ')
    .replace(CONTROLS, '');
}

/** A JSON answer with every string in it, keys included, made plain (for printing it whole). */
export function plainJson(value: unknown): unknown {
  if (typeof value === 'string') return plainText(value);
  if (Array.isArray(value)) return value.map(plainJson);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, entry]) => [plainText(key), plainJson(entry)]),
    );
  }
  return value;
}
