import { authHeaders, type Credentials } from './credentials.js';
import { plainText } from './terminal-text.js';

/** A failure the user reads as one sentence (the api's `message`, or why it could not be asked). */
export class ClientError extends Error {
  override readonly name = 'ClientError';
}

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

const TIMEOUT_MS = 15_000;
/**
 * The largest answer read. The largest real one (a dry run's plan of MAX_SELECTORS selectors and
 * their pods) is a few MiB; past this the server is not a pod-bouncer worth listening to.
 */
const MAX_ANSWER_MIB = 32;
/** The most of the server's words put in a sentence of the client's own. */
const MAX_QUOTED = 200;

function unreachable(url: string, error: unknown): ClientError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why =
    cause?.code === 'ECONNREFUSED'
      ? 'the connection was refused'
      : cause?.code === 'ENOTFOUND'
        ? 'the host name does not resolve'
        : error instanceof Error && error.name === 'TimeoutError'
          ? `it did not answer within ${TIMEOUT_MS / 1000} s`
          : (cause?.message ?? (error instanceof Error ? error.message : String(error)));
  return new ClientError(
    `Could not reach pod-bouncer at ${url} (${plainText(why)}); is it running, and is POD_BOUNCER_URL right?`,
  );
}

/** The server's own words, cut short and without a control character, to quote in a sentence. */
function quoted(text: string): string {
  return plainText(text.slice(0, MAX_QUOTED * 2))
    .trim()
    .slice(0, MAX_QUOTED);
}

function sentence(status: number, body: Record<string, unknown>, text: string): string {
  if (typeof body.message === 'string' && quoted(body.message) !== '') return quoted(body.message);
  const snippet = quoted(text);
  return `pod-bouncer answered ${status}${snippet ? `: ${snippet}` : '.'}`;
}

/**
 * A redirect is not followed: it would carry the request, its body and its signature headers (a
 * `send`'s X-Signature-256 or webhook-*) to wherever the answer points.
 */
function redirected(response: Response): ClientError {
  const location = response.headers.get('location');
  const to = location ? ` to ${quoted(location)}` : '';
  return new ClientError(
    `pod-bouncer answered ${response.status}, a redirect${to}, which the client does not follow; ` +
      `set POD_BOUNCER_URL to the api's own address.`,
  );
}

/** The answer's text, read up to MAX_ANSWER_MIB: a server that sends more is refused. */
async function readText(response: Response): Promise<string> {
  const limit = MAX_ANSWER_MIB * 1024 * 1024;
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body === null) return '';
  // Leaving the loop early (the throw) cancels the stream: the rest is never read.
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) {
      throw new ClientError(`pod-bouncer's answer is larger than ${MAX_ANSWER_MIB} MiB; not read.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Talks to a running pod-bouncer api, with the credentials it is given: a token on every request,
 * or (for `send` alone) a signature of the exact body. It follows no redirect, reads a bounded
 * answer, and every sentence it makes of the server's words is free of control characters.
 */
export class ApiClient {
  readonly base: string;

  constructor(
    base: string,
    private readonly credentials: Credentials,
  ) {
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      throw new ClientError(`POD_BOUNCER_URL must be an http:// or https:// URL, not "${base}".`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ClientError(`POD_BOUNCER_URL must be an http:// or https:// URL, not "${base}".`);
    }
    this.base = base.replace(/\/+$/, '');
  }

  get(path: string): Promise<ApiAnswer> {
    return this.request('GET', path, undefined);
  }

  /** A POST; the admin verbs send no body (their routes read none). */
  post(path: string, body?: object): Promise<ApiAnswer> {
    return this.request('POST', path, body === undefined ? undefined : JSON.stringify(body));
  }

  /** Answers with a 2xx body, or throws a ClientError carrying the api's own sentence. */
  async ok(answer: Promise<ApiAnswer>): Promise<Record<string, unknown>> {
    const { status, body } = await answer;
    if (status >= 200 && status < 300) return body;
    throw new ClientError(
      typeof body.message === 'string' ? body.message : `pod-bouncer answered ${status}.`,
    );
  }

  private async request(
    method: string,
    path: string,
    body: string | undefined,
  ): Promise<ApiAnswer> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...authHeaders(this.credentials, body ?? ''),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        throw redirected(response);
      }
      text = await readText(response);
    } catch (error) {
      throw error instanceof ClientError ? error : unreachable(this.base, error);
    }
    return { status: response.status, body: parsed(response.status, text) };
  }
}

/** The answer as an object; a 4xx or 5xx carries a plain `message` for the user. */
function parsed(status: number, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ClientError(sentence(status, {}, text));
  }
  const body =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  if (status >= 400) return { ...body, message: sentence(status, body ?? {}, text) };
  if (body === undefined) throw new ClientError("pod-bouncer's answer is not a JSON object.");
  return body;
}
