import { createHmac, randomUUID } from 'node:crypto';

/** How the client proves who it is: POD_BOUNCER_TOKEN, or (`send` only) one of the two signing secrets. */
export type Credentials =
  | { kind: 'token'; token: string }
  | { kind: 'hmac'; secret: string }
  | { kind: 'standard'; key: Buffer }
  | { kind: 'none' };

export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The one credential `send` uses, a token or a signing secret; more than one is a mistake worth
 * naming.
 */
export function credentialsFrom(env: Env): Credentials {
  const token = read(env, 'POD_BOUNCER_TOKEN');
  const hmac = read(env, 'POD_BOUNCER_HMAC_SECRET');
  const standard = read(env, 'POD_BOUNCER_STANDARD_SECRET');
  const given = [token, hmac, standard].filter((value) => value !== undefined).length;
  if (given > 1) {
    throw new CredentialsError(
      'Set only one of POD_BOUNCER_TOKEN, POD_BOUNCER_HMAC_SECRET and POD_BOUNCER_STANDARD_SECRET.',
    );
  }
  if (token !== undefined) return { kind: 'token', token };
  if (hmac !== undefined) return { kind: 'hmac', secret: hmac };
  if (standard !== undefined) return { kind: 'standard', key: standardKey(standard) };
  return { kind: 'none' };
}

/**
 * The token of a command other than `send`. A signature covers only a body (and, for Standard
 * Webhooks, an id and a time), never the route, so the api takes one on POST /v1/events alone:
 * status, retry, pause, resume and abort need a bearer token, and say so before asking.
 */
export function tokenFrom(env: Env, command: string): Credentials {
  const token = read(env, 'POD_BOUNCER_TOKEN');
  if (token !== undefined) return { kind: 'token', token };
  throw new CredentialsError(
    `pod-bouncer ${command} needs POD_BOUNCER_TOKEN, a bearer token (one of WEBHOOK_TOKENS or a ` +
      'service-account token); only send signs, with POD_BOUNCER_HMAC_SECRET or POD_BOUNCER_STANDARD_SECRET.',
  );
}

function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0 || !/^[A-Za-z0-9+/]+=*$/.test(encoded)) {
    throw new CredentialsError('POD_BOUNCER_STANDARD_SECRET must look like whsec_<base64>.');
  }
  return key;
}

/**
 * The headers that authenticate one request whose body is exactly `body`: a bearer token, GitHub's
 * `X-Signature-256` over the raw body, or the Standard Webhooks triple (id, timestamp, signature
 * of "id.timestamp.body").
 */
export function authHeaders(
  credentials: Credentials,
  body: string,
  now: Date = new Date(),
): Record<string, string> {
  switch (credentials.kind) {
    case 'token':
      return { authorization: `Bearer ${credentials.token}` };
    case 'hmac': {
      const digest = createHmac('sha256', credentials.secret).update(body).digest('hex');
      return { 'x-signature-256': `sha256=${digest}` };
    }
    case 'standard': {
      const id = `msg_${randomUUID()}`;
      const timestamp = String(Math.floor(now.getTime() / 1000));
      const signature = createHmac('sha256', credentials.key)
        .update(`${id}.${timestamp}.${body}`)
        .digest('base64');
      return {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': `v1,${signature}`,
      };
    }
    case 'none':
      return {};
  }
}
