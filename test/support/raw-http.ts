import { request } from 'node:http';

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
