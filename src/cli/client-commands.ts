import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { ApiClient, ClientError } from './api-client.js';
import { credentialsFrom, tokenFrom, type Credentials } from './credentials.js';
import { CLIENT_ENV, envHelp, TOKEN_ENV } from './env-help.js';
import { gateChange } from '../status/gate-change.js';
import { SUMMARY_ABOVE } from './status-summary.js';
import { finalState, readyCondition, renderStatus, type DirectiveView } from './status-view.js';
import { plainJson, plainText } from './terminal-text.js';
import { directiveViewOf } from './view-answer.js';

export interface DirectiveRef {
  namespace: string;
  name: string;
}

const DNS_1123 = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** `<namespace>/<name>`, both DNS-1123 names; anything else is a usage error (exit 2). */
export function parseRef(value: string): DirectiveRef {
  const [namespace, name, extra] = value.split('/');
  if (
    extra !== undefined ||
    !namespace ||
    !name ||
    !DNS_1123.test(namespace) ||
    !DNS_1123.test(name)
  ) {
    throw new InvalidArgumentError(`expected <namespace>/<name>, such as istio-system/mesh-certs.`);
  }
  return { namespace, name };
}

function parseInstant(value: string): string {
  if (Number.isNaN(Date.parse(value))) {
    throw new InvalidArgumentError('expected an RFC 3339 time, such as 2026-11-29T12:00:00Z.');
  }
  return value;
}

/** `send` signs or sends a token; every other command sends POD_BOUNCER_TOKEN, or stops. */
function clientFrom(env: Record<string, string | undefined>, command: string): ApiClient {
  const credentials: Credentials =
    command === 'send' ? credentialsFrom(env) : tokenFrom(env, command);
  return new ApiClient(env.POD_BOUNCER_URL?.trim() || 'http://127.0.0.1:8080', credentials);
}

/** An answer printed whole, as JSON whose every string (keys too) is free of control characters. */
function printable(answer: Record<string, unknown>): string {
  try {
    return `${JSON.stringify(plainJson(answer), null, 2)}\n`;
  } catch (error) {
    // Nesting deep enough to exhaust the stack: not a pod-bouncer answer.
    if (error instanceof RangeError) {
      throw new ClientError("pod-bouncer's answer is nested too deeply to print.");
    }
    throw error;
  }
}

const path = (ref: DirectiveRef, verb?: string): string =>
  `/v1/directives/${encodeURIComponent(ref.namespace)}/${encodeURIComponent(ref.name)}${verb ? `/${verb}` : ''}`;

export interface ClientIo {
  env: Record<string, string | undefined>;
  out: NodeJS.WriteStream;
  /** Exit code of the command that ran. */
  setExitCode(code: number): void;
}

interface SendOptions {
  issuedAt?: string;
  dryRun?: boolean;
}

interface StatusOptions {
  watch?: boolean;
  all?: boolean;
}

async function send(io: ClientIo, ref: DirectiveRef, options: SendOptions): Promise<void> {
  const api = clientFrom(io.env, 'send');
  const body = { directive: ref, ...(options.issuedAt ? { issuedAt: options.issuedAt } : {}) };
  const answer = await api.ok(api.post(`/v1/events${options.dryRun ? '?dryRun=true' : ''}`, body));
  io.out.write(printable(answer));
}

async function readView(api: ApiClient, ref: DirectiveRef): Promise<DirectiveView> {
  const body = await api.ok(api.get(path(ref)));
  return directiveViewOf(body, `${ref.namespace}/${ref.name}`);
}

/**
 * A line cut to the terminal's width: the redraw moves the cursor up one row per line, so a line
 * that wrapped would leave its second row behind on every redraw.
 */
function fitted(line: string, columns: number | undefined): string {
  const characters = [...line];
  if (!columns || characters.length < columns) return line;
  return `${characters.slice(0, Math.max(1, columns - 2)).join('')}…`;
}

async function status(io: ClientIo, ref: DirectiveRef, options: StatusOptions): Promise<void> {
  const api = clientFrom(io.env, 'status');
  const tty = io.out.isTTY === true;
  let view = await readView(api, ref);
  let before: DirectiveView | undefined;
  let shown: string[] = [];
  for (;;) {
    // The view's strings are plain already; each line is made plain again as it is printed.
    const plain = (line: string): string =>
      tty ? fitted(plainText(line), io.out.columns) : plainText(line);
    const lines = renderStatus(view, tty, options.all === true).map(plain);
    // A gate closing or all open again is a line of its own, kept above the redrawn block.
    const change = options.watch
      ? gateChange(readyCondition(before), readyCondition(view))
      : undefined;
    if (change !== undefined || lines.join('\n') !== shown.join('\n')) {
      // On a terminal the previous block is redrawn in place; elsewhere each change is a new block.
      if (tty && shown.length > 0) io.out.write(`\x1b[${shown.length}A\x1b[J`);
      if (change !== undefined) io.out.write(`${plain(change)}\n`);
      io.out.write(`${lines.join('\n')}\n`);
      shown = lines;
    }
    before = view;
    const final = finalState(view);
    if (!options.watch) return;
    if (final !== undefined) {
      io.setExitCode(final === 'FINISHED' ? 0 : 1);
      return;
    }
    await sleep(1000);
    view = await readView(api, ref);
  }
}

async function verb(io: ClientIo, ref: DirectiveRef, action: string): Promise<void> {
  const api = clientFrom(io.env, action);
  const answer = await api.ok(api.post(path(ref, action)));
  io.out.write(printable(answer));
}

const VERBS: [string, string][] = [
  ['retry', 'retry the failed selector job of the latest run'],
  ['pause', 'stop bouncing further pods of the directive (waits go on)'],
  ['resume', 'resume a paused directive'],
  ['abort', 'end the latest run as FAILED (Aborted); a retry resumes it'],
];

/** `send`, `status` and the admin verbs: talk to a running api. */
export function registerClientCommands(program: Command, io: ClientIo): void {
  const help = envHelp(TOKEN_ENV);
  program
    .command('send')
    .description("post a cert-issued event for a directive (the issuer's one-liner)")
    .argument('<namespace/name>', 'the PodBounceDirective', parseRef)
    .option('--issued-at <time>', 'when the certificate was issued (RFC 3339)', parseInstant)
    .option('--dry-run', 'print the plan instead of starting a run')
    .addHelpText('after', envHelp(CLIENT_ENV))
    .action((ref: DirectiveRef, options: SendOptions) => send(io, ref, options));
  program
    .command('status')
    .description('show the latest run: one line per selector')
    .argument('<namespace/name>', 'the PodBounceDirective', parseRef)
    .option('-w, --watch', 'redraw until FINISHED (exit 0) or FAILED (exit 1)')
    .option('--all', `one line per selector even above ${SUMMARY_ABOVE} selectors (else a summary)`)
    .addHelpText('after', help)
    .action((ref: DirectiveRef, options: StatusOptions) => status(io, ref, options));
  for (const [name, description] of VERBS) {
    program
      .command(name)
      .description(description)
      .argument('<namespace/name>', 'the PodBounceDirective', parseRef)
      .addHelpText('after', help)
      .action((ref: DirectiveRef) => verb(io, ref, name));
  }
}
