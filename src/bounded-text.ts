/**
 * Texts pod-bouncer writes where the reader's side has a limit: the API server refuses a condition
 * message over the CRD's maxLength (and the whole status write with it), client-go keeps an Event's
 * message to 1 KB, and a log line of megabytes is a burden on every log pipeline. A text from
 * elsewhere (an alert name, a PromQL query, an API server's answer) has no such limit, so it is cut
 * where it is written, once per kind of text, far inside the reader's limit.
 */

/** A condition message or the status `error`: far inside the CRD's 32768, and still readable. */
export const STATUS_TEXT_BYTES = 4096;
/** An Event's message, as client-go's recorder keeps it. */
export const EVENT_TEXT_BYTES = 1024;
/** An error's message or a string of its fields in a log line. */
export const LOG_TEXT_BYTES = 4096;

const MARK = '…';
const MARK_BYTES = Buffer.byteLength(MARK);

/**
 * `text` when its UTF-8 form fits in `maxBytes`; else its longest prefix of whole code points that
 * fits with `…` after it (a surrogate pair is never split). Reads no further than the cut.
 */
export function boundedText(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  const room = maxBytes - MARK_BYTES;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > room) break;
    bytes += size;
    end += char.length;
  }
  return `${text.slice(0, end)}${MARK}`;
}
