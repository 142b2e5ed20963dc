// Unauthenticated load against a pod-bouncer api, loopback only and bounded in count and time:
// stalled uploads (headers and a few bytes of a large body, then silence) and junk credentials
// with bodies of up to 1 MB. Shared by test/integration/security-load.test.ts and bench/attack.ts.
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';

export type AttackMode = 'tokens' | 'hmac' | 'standard' | 'tokenreview';
export type AttackKind = 'slow-body' | 'junk';

/** The headers an attacker in this mode would send: plausible, never valid. */
export function attackerHeaders(mode: AttackMode, i: number): Record<string, string> {
  switch (mode) {
    case 'hmac':
      return { 'x-signature-256': `sha256=${'0'.repeat(64)}` };
    case 'standard':
      return {
        'webhook-id': `msg_attack_${i}`,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      };
    default:
      return { authorization: `Bearer attacker-${mode}-${i}` };
  }
}

function requestHead(length: number, headers: Record<string, string>): string {
  const lines = Object.entries({ 'content-type': 'application/json', ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return `POST /v1/events HTTP/1.1\r\nHost: attack\r\nContent-Length: ${length}\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * One attacking connection. `slow-body` announces 1 MB and sends 16 bytes; `junk` sends a whole
 * body of `junkBytes`. Resolves when the server closes the connection or `giveUpMs` passes.
 */
export function attackOnce(
  url: string,
  mode: AttackMode,
  kind: AttackKind,
  i: number,
  options: { giveUpMs: number; junkBytes: number },
): Promise<'closed' | 'gave up'> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve('gave up');
    }, options.giveUpMs);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve('closed');
    });
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    const headers = attackerHeaders(mode, i);
    if (kind === 'slow-body') {
      socket.write(requestHead(1_048_000, headers) + '{"directive": {');
      return;
    }
    const body = `{"directive": {"namespace": "x", "name": "y"}, "pad": "${'x'.repeat(options.junkBytes)}"}`;
    socket.write(requestHead(Buffer.byteLength(body), { ...headers, connection: 'close' }));
    socket.write(body);
  });
}

/** `count` attacking connections at once; resolves with how each ended. */
export async function attack(
  url: string,
  mode: AttackMode,
  kind: AttackKind,
  count: number,
  options: { giveUpMs: number; junkBytes: number },
): Promise<Array<'closed' | 'gave up'>> {
  return Promise.all(
    Array.from({ length: count }, (_, i) => attackOnce(url, mode, kind, i, options)),
  );
}

/** Resident set size of a process (Linux), in bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; returns the peak. */
export function watchRss(pid: number, everyMs = 50): { stop(): number } {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {
      // the process ended
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
