import { request } from 'node:http';
import { connect } from 'node:net';

/**
 * One request whose path is sent byte for byte (fetch would drop a `#fragment` and normalise
 * `//`, `%2F` or `..`): what a hostile client can put on the wire.
 */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = request({ hostname, port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** How a request whose body never finished arriving was answered. */
export interface DripAnswer {
  /** The status the server answered before the body was complete; undefined when it waited. */
  status: number | undefined;
  /** Whether the server then closed the connection, rather than keep it to read the rest. */
  closed: boolean;
}

/**
 * Sends the head of a request that announces `announced` bytes of body, then only the first few
 * bytes of it, and never the rest: a server that reads the body before answering cannot answer
 * (until its body timeout), one that leaves it unread answers at once. Resolves when the server
 * answered and closed, or `giveUpMs` passed; nothing is ever sent after the first bytes.
 */
export function dripRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  options: { announced?: number; first?: string; giveUpMs?: number } = {},
): Promise<DripAnswer> {
  const { hostname, port } = new URL(url);
  const announced = options.announced ?? 1_048_000;
  const first = options.first ?? '[[[[[[[[[[[[[[[[';
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let status: number | undefined;
    const finish = (closed: boolean): void => {
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ status, closed });
    };
    const giveUp = setTimeout(() => finish(false), options.giveUpMs ?? 5000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match?.[1] !== undefined) status = Number(match[1]);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    const lines = Object.entries({ 'content-type': 'application/json', ...headers }).map(
      ([name, value]) => `${name}: ${value}\r\n`,
    );
    socket.write(
      `${method} ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: ${announced}\r\n` +
        `${lines.join('')}\r\n${first}`,
    );
  });
}
