import { STATUS_CODES } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** `{error, message}` with both strings: the body every error of pod-bouncer has. */
function isProblem(body: unknown): boolean {
  const fields = body as { error?: unknown; message?: unknown } | null;
  return typeof fields?.error === 'string' && typeof fields.message === 'string';
}

function parsed(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

/** `ERRORS.JOB_NOT_FOUND` → "Job not found." */
function sentenceOf(key: string): string {
  const words = key
    .replace(/^ERRORS\./, '')
    .replace(/_/g, ' ')
    .toLowerCase();
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
}

/** What bull-board said, as one plain sentence; a failure's own words stay in the logs. */
function messageOf(body: unknown, status: number): string {
  if (status >= 500) return 'The dashboard failed to handle the request; see pod-bouncer logs.';
  const fields = body as { error?: unknown; message?: unknown } | null;
  if (typeof fields?.message === 'string' && fields.message !== '') return fields.message;
  const key = (fields?.error as { key?: unknown } | null)?.key;
  if (typeof key === 'string') return sentenceOf(key);
  if (typeof fields?.error === 'string' && fields.error !== '') return fields.error;
  return `The dashboard answered ${status} ${STATUS_CODES[status] ?? ''}.`.replace(' .', '.');
}

/**
 * bull-board answers its own refusals as `{"error": {"key": "ERRORS.JOB_NOT_FOUND"}}` (or plain
 * text): they are given the `{error, message}` body every error answer has (DESIGN §2), the code
 * from the HTTP status. Answers pod-bouncer wrote itself, and every success, pass unchanged. Its
 * UI then shows the message instead of a translated key on a refused action.
 */
export function uniformDashboardErrors(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const status = reply.statusCode;
    if (status < 400 || request.method === 'HEAD') {
      done(null, payload);
      return;
    }
    const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : payload;
    if (typeof text !== 'string') {
      done(null, payload);
      return;
    }
    const body = parsed(text);
    if (isProblem(body)) {
      done(null, text);
      return;
    }
    const code = (STATUS_CODES[status] ?? 'error').toLowerCase().replace(/[^a-z]+/g, '_');
    void reply.type('application/json; charset=utf-8');
    done(null, JSON.stringify({ error: code, message: messageOf(body, status) }));
  });
}
