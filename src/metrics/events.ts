import { eventsReceived } from './registry.js';

export type EventOutcome = 'accepted' | 'duplicate' | 'ignored' | 'dry_run' | 'rejected';

interface Note {
  shape: string;
  outcome?: EventOutcome;
}

/** What the handler learnt about a request, read back once the answer is sent. */
const notes = new WeakMap<object, Note>();

/** Records the shape (once known) and the outcome of an event request. */
export function noteEvent(request: object, note: Partial<Note>): void {
  notes.set(request, { shape: 'unknown', ...notes.get(request), ...note });
}

/**
 * Counts one answered event request. Requests refused before their body was understood (auth,
 * content type, malformed JSON) count with shape "unknown"; every non-2xx is "rejected".
 */
export function countEventResponse(request: object, statusCode: number): void {
  const note = notes.get(request);
  const outcome = statusCode >= 300 ? 'rejected' : (note?.outcome ?? 'accepted');
  eventsReceived.inc({ shape: note?.shape ?? 'unknown', outcome, code: String(statusCode) });
}
