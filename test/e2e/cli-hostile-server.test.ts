import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runCli } from '../support/cli-run.js';

/** What a server saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A plain HTTP server on 127.0.0.1:0 that records every request it is sent. */
async function startServer(handle: Handler) {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    request.resume();
    request.on('end', () => handle(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/** Terminal control characters: C0 but the newline ending each line, DEL, and C1. */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

/** A status whose every string tries to take over the terminal. */
const HOSTILE_VIEW = {
  directive: 'evil/escapes\x1b]0;owned\x07',
  generation: 1,
  paused: false,
  inProgress: false,
  status: {
    state: 'FAILED',
    error:
      'selector 0: boom\x1b[2J\x1b[H\nevil/escapes  FINISHED\x1b[1A\r\u009b2J\u009d0;t\u009c\x7f',
    conditions: [
      { type: 'Ready', status: 'False', reason: 'Failed', message: 'x\x1b]0;title\x1b\\y\x1b[31m' },
    ],
    podsBounced: [{ bouncedPods: ['pod\x1b[2J'] }],
  },
  jobs: [
    {
      selectorIndex: 0,
      jobId: 'j\x1b[2J',
      state: 'failed\x1b[1A',
      attemptsMade: 1,
      failedReason: 'why\x1b]52;c;Y2xpcGJvYXJk\x07',
    },
  ],
};

/** The client against an api that answers with what no pod-bouncer would: it must stay in charge. */
describe('pod-bouncer CLI against a hostile server', () => {
  let api: Awaited<ReturnType<typeof startServer>>;
  let elsewhere: Awaited<ReturnType<typeof startServer>>;
  const env = () => ({ POD_BOUNCER_URL: api.url, POD_BOUNCER_TOKEN: 'a-token-of-the-api' });

  beforeAll(async () => {
    elsewhere = await startServer((_request, response) => json(response, 200, { stolen: true }));
    const redirect = (response: ServerResponse) =>
      response.writeHead(307, { location: `${elsewhere.url}/steal` }).end();
    api = await startServer((request, response) => {
      const route = `${request.method} ${request.url}`;
      switch (route) {
        case 'GET /v1/directives/evil/escapes':
          return json(response, 200, HOSTILE_VIEW);
        case 'GET /v1/directives/evil/huge':
          return json(response, 200, { jobs: [{ selectorIndex: 50_000_000 }] });
        case 'GET /v1/directives/evil/malformed':
          return json(response, 200, { status: 'FAILED', jobs: { 0: 1 } });
        case 'GET /v1/directives/evil/text':
          return response.writeHead(200).end('not json\x1b]0;owned\x07 at all');
        case 'GET /v1/directives/evil/endless': {
          // 64 MiB of a JSON string that never ends, unless the client stops reading first.
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write('{"pad":"');
          const chunk = 'x'.repeat(64 * 1024);
          let left = 1024;
          const more = (): void => {
            while (left > 0 && !response.destroyed) {
              left -= 1;
              if (!response.write(chunk)) return void response.once('drain', more);
            }
            response.end('"}');
          };
          return more();
        }
        case 'GET /v1/directives/evil/redirect':
        case 'POST /v1/events':
          return redirect(response);
        case 'POST /v1/directives/evil/escapes/pause':
          return json(response, 409, {
            error: 'conflict',
            message: 'no\x1b]0;x\x07 way\x1b[2J\u009b1A.',
          });
        case 'POST /v1/directives/evil/escapes/resume':
          return json(response, 200, {
            directive: 'evil/escapes',
            paused: false,
            note: '\u009b2J\x7fhi\x1b[1A',
            'k\x1b[2Jey': 1,
          });
        default:
          return json(response, 404, { error: 'not_found', message: `No route ${route}.` });
      }
    });
  });
  afterAll(async () => {
    await api?.close();
    await elsewhere?.close();
  });

  it('strips every control sequence from status --watch, and keeps one line per selector', async () => {
    const run = await runCli(['status', '--watch', 'evil/escapes'], env());
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).not.toMatch(CONTROL);
    const lines = linesOf(run.stdout);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^evil\/escapes {2}FAILED {2}generation 1 {2}— selector 0: boom/);
    // The OSC payloads (a window title, a clipboard write) are dropped with their sequence.
    expect(run.stdout).not.toMatch(/owned|Y2xpcGJvYXJk/);
    expect(lines[1]).toMatch(/^selector 1\/1 {2}bounced -\/1 .* failed {2}why$/);
  });

  it('refuses an answer whose selector index is out of bounds, at once, in one sentence', async () => {
    const started = Date.now();
    // A small heap: an answer that would build millions of lines ends the process, not the machine.
    const run = await runCli(['status', 'evil/huge'], {
      ...env(),
      NODE_OPTIONS: '--max-old-space-size=96',
    });
    expect(run.code, run.stderr.slice(0, 300)).toBe(1);
    expect(linesOf(run.stderr)).toEqual([
      expect.stringMatching(/^pod-bouncer's answer .*selectorIndex.*\.$/),
    ]);
    expect(run.stdout).toBe('');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('says in one sentence that an answer is malformed, not JSON, or too large', async () => {
    for (const [name, pattern] of [
      ['malformed', /^pod-bouncer's answer .*(status|jobs).*\.$/],
      ['text', /^pod-bouncer answered 200: not json at all\.?$/],
      ['endless', /^pod-bouncer's answer is larger than \d+ MiB/],
    ] as const) {
      const run = await runCli(['status', `evil/${name}`], env());
      expect(run.code, `${name}: ${run.stderr.slice(0, 300)}`).toBe(1);
      expect(linesOf(run.stderr), name).toEqual([expect.stringMatching(pattern)]);
      expect(run.stderr).not.toMatch(CONTROL);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("prints the api's error sentence and its answers without control characters", async () => {
    const refused = await runCli(['pause', 'evil/escapes'], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('no way.\n');
    const answered = await runCli(['resume', 'evil/escapes'], env());
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).not.toMatch(CONTROL);
    // JSON.stringify would have escaped C0 as \u001b, printable but still the server's bytes.
    expect(answered.stdout).not.toMatch(/\\u00/);
    expect(JSON.parse(answered.stdout)).toEqual({
      directive: 'evil/escapes',
      paused: false,
      note: 'hi',
      key: 1,
    });
  });

  it('follows no redirect: a 3xx is one sentence, and the signature goes nowhere else', async () => {
    const standard = `whsec_${Buffer.from('a key of thirty-two bytes, fine!').toString('base64')}`;
    const runs = [
      await runCli(['status', 'evil/redirect'], env()),
      await runCli(['send', 'evil/escapes'], {
        POD_BOUNCER_URL: api.url,
        POD_BOUNCER_HMAC_SECRET: 'the-hmac-secret',
      }),
      await runCli(['send', 'evil/escapes'], {
        POD_BOUNCER_URL: api.url,
        POD_BOUNCER_STANDARD_SECRET: standard,
      }),
    ];
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(1);
      expect(linesOf(run.stderr)).toEqual([
        expect.stringMatching(/^pod-bouncer answered 307, a redirect .*; .*POD_BOUNCER_URL.*\.$/),
      ]);
      expect(run.stderr).not.toMatch(CONTROL);
    }
    expect(elsewhere.seen).toEqual([]);
  });

  it('needs POD_BOUNCER_TOKEN for status, retry, pause, resume and abort: only send signs', async () => {
    const before = api.seen.length;
    const standard = `whsec_${Buffer.from('a key of thirty-two bytes, fine!').toString('base64')}`;
    for (const [command, credential] of [
      ['status', { POD_BOUNCER_HMAC_SECRET: 'the-hmac-secret' }],
      ['retry', { POD_BOUNCER_STANDARD_SECRET: standard }],
      ['pause', {}],
      ['resume', { POD_BOUNCER_HMAC_SECRET: 'the-hmac-secret' }],
      ['abort', {}],
    ] as const) {
      const run = await runCli([command, 'evil/escapes'], {
        POD_BOUNCER_URL: api.url,
        ...credential,
      });
      expect(run.code, `${command}: ${run.stderr}`).toBe(1);
      expect(linesOf(run.stderr), command).toEqual([
        expect.stringMatching(new RegExp(`^pod-bouncer ${command} needs POD_BOUNCER_TOKEN.*\\.$`)),
      ]);
    }
    expect(api.seen.length).toBe(before);
  });
});
