/**
 * The environment variables each subcommand reads, for its `--help`. The server roles' lists come
 * from the declarations in config/variables.ts; the client's and the demo's are their own.
 */

import { helpLines } from '../config/reference.js';

/** What `send` reads: a token, or a secret to sign its event with (the api takes either there). */
export const CLIENT_ENV: [string, string][] = [
  ['POD_BOUNCER_URL', 'the api to talk to (default http://127.0.0.1:8080)'],
  [
    'POD_BOUNCER_TOKEN',
    'bearer token (one of WEBHOOK_TOKENS, or a service-account token); status, retry, pause, resume and abort need it',
  ],
  [
    'POD_BOUNCER_HMAC_SECRET',
    'send only: sign the event with X-Signature-256 (WEBHOOK_HMAC_SECRET)',
  ],
  ['POD_BOUNCER_STANDARD_SECRET', 'send only: sign the event as Standard Webhooks (whsec_…)'],
];

/** What status, retry, pause, resume and abort read: the api takes no signature on those routes. */
export const TOKEN_ENV: [string, string][] = [
  ['POD_BOUNCER_URL', 'the api to talk to (default http://127.0.0.1:8080)'],
  [
    'POD_BOUNCER_TOKEN',
    'bearer token, required (one of WEBHOOK_TOKENS, or a service-account token)',
  ],
];

export const DEMO_ENV: [string, string][] = [
  ['REDIS_URL', 'Redis connection (default redis://127.0.0.1:6379)'],
  ['LOG_LEVEL', 'pod-bouncer log level during the demo (default warn)'],
];

export const ROLE_ENV = {
  serve: helpLines('serve'),
  work: helpLines('work'),
  all: helpLines('all'),
};

/** The "Environment variables:" block appended to a subcommand's help. */
export function envHelp(variables: [string, string][]): string {
  const width = Math.max(...variables.map(([name]) => name.length));
  const lines = variables.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}`);
  return `\nEnvironment variables:\n${lines.join('\n')}\n`;
}
