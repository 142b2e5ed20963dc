import { authHeaders, type Credentials } from './credentials.js';

/** A failure the user reads as one sentence (the api's `message`, or why it could not be asked). */
export class ClientError extends Error {
  override readonly name = 'ClientError';
}

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

const TIMEOUT_MS = 15_000;

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
    `Could not reach pod-bouncer at ${url} (${why}); is it running, and is POD_BOUNCER_URL right?`,
  );
}

function sentence(status: number, body: Record<string, unknown>, text: string): string {
  if (typeof body.message === 'string' && body.message !== '') return body.message;
  const snippet = text.trim().slice(0, 200);
  return `pod-bouncer answered ${status}${snippet ? `: ${snippet}` : '.'}`;
}

/**
 * Talks to a running pod-bouncer api. Every request is authenticated with the configured
 * credentials; a POST always carries a JSON body (`{}` when there is nothing to say), so that a
 * signature covers real bytes.
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

  post(path: string, body: object = {}): Promise<ApiAnswer> {
    return this.request('POST', path, JSON.stringify(body));
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
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw unreachable(this.base, error);
    }
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      const value: unknown = text === '' ? {} : JSON.parse(text);
      if (typeof value === 'object' && value !== null) parsed = value as Record<string, unknown>;
    } catch {
      throw new ClientError(sentence(response.status, {}, text));
    }
    if (response.status >= 400 && typeof parsed.message !== 'string') {
      parsed = { ...parsed, message: sentence(response.status, parsed, text) };
    }
    return { status: response.status, body: parsed };
  }
}
