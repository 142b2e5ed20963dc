import { connect, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { eventually, type Harness } from './harness.js';
import { REDIS_URL } from './redis.js';

/** One MONITOR line: `+<time> [<db> <client address>] "cmd" "arg" …` (or `[<db> lua]`). */
const LINE = /^\+\S+ \[\d+ ([^\]]+)\] (.*)$/;

/** The quoted arguments of a MONITOR line, with Redis' escapes (\" \\ \n \r \t \xNN) undone. */
function argsOf(text: string): string[] {
  const args: string[] = [];
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
    args.push(
      match[1]!.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, code: string) => {
        if (code.startsWith('x') && code.length === 3)
          return String.fromCharCode(parseInt(code.slice(1), 16));
        return (
          ({ n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' } as Record<string, string>)[code] ??
          code
        );
      }),
    );
  }
  return args;
}

/**
 * MONITOR on a plain socket: ioredis' own monitor mode can take monitor lines that arrive with
 * its OK for replies to its commands ("Command queue state error") when other clients are busy.
 */
async function monitorSocket(onLine: (source: string, args: string[]) => void): Promise<Socket> {
  const { hostname, port } = new URL(REDIS_URL);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let pending = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    let end = pending.indexOf('\r\n');
    while (end !== -1) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const parsed = LINE.exec(line);
      if (parsed !== null) onLine(parsed[1]!, argsOf(parsed[2]!));
      end = pending.indexOf('\r\n');
    }
  });
  socket.write('MONITOR\r\n');
  return socket;
}

/** Every command the api's Redis connection sends while `work` runs, seen by MONITOR. */
export async function commandsDuring(h: Harness, work: () => Promise<void>): Promise<string[][]> {
  const probe = new Redis(REDIS_URL);
  const id = await h.serve.redis.client('ID');
  const listed = String(await probe.client('LIST', 'ID', String(id)));
  probe.disconnect();
  const address = /addr=(\S+)/.exec(listed)?.[1];
  expect(address).toBeDefined();
  const seen: string[][] = [];
  const monitor = await monitorSocket((source, args) => {
    if (source === address) seen.push(args);
  });
  try {
    // A marker command from the api's own connection shows MONITOR is seeing it.
    await eventually('MONITOR to see the api', async () => {
      await h.serve.redis.echo('monitor-start');
      return seen.some((args) => args[1] === 'monitor-start') ? true : undefined;
    });
    seen.length = 0;
    await work();
    await h.serve.redis.echo('monitor-end');
    await eventually('MONITOR to catch up', () =>
      seen.some((args) => args[1] === 'monitor-end') ? true : undefined,
    );
    // A start marker sent again while MONITOR was attaching may arrive after the reset.
    return seen.filter((args) => args[0] !== 'echo' || !String(args[1]).startsWith('monitor-'));
  } finally {
    monitor.destroy();
  }
}
