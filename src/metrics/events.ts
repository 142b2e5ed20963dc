import { eventsReceived } from './registry.js';

export type EventOutcome = 'accepted' | 'duplicate' | 'ignored' | 'dry_run' | 'rejected';

interface Note {
  shape: string;
  outcome?: EventOutcome;
}

/**
 * What the handler learnt about a request, read back once the answer is sent: kept on the request
 * itself under a symbol (a WeakMap entry per request costs the collector more than the request).
 */
const NOTE = Symbol('pod-bouncer event note');

type Noted = { [NOTE]?: Note };

/** Records the shape (once known) and the outcome of an event request. */
export function noteEvent(request: object, note: Partial<Note>): void {
  const noted = request as Noted;
  const known = noted[NOTE];
  if (known === undefined) {
    noted[NOTE] = {
      shape: note.shape ?? 'unknown',
      ...(note.outcome ? { outcome: note.outcome } : {}),
    };
    return;
  }
  if (note.shape !== undefined) known.shape = note.shape;
  if (note.outcome !== undefined) known.outcome = note.outcome;
}

/**
 * Counts one answered event request. Requests refused before their body was understood (auth,
 * content type, malformed JSON) count with shape "unknown"; every non-2xx is "rejected".
 */
export function countEventResponse(request: object, statusCode: number): void {
  const note = (request as Noted)[NOTE];
  const outcome = statusCode >= 300 ? 'rejected' : (note?.outcome ?? 'accepted');
  eventsReceived.inc({ shape: note?.shape ?? 'unknown', outcome, code: String(statusCode) });
}
