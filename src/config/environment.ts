/**
 * Reads one declared variable from the environment, with the default, bounds and wording its
 * declaration in `variables.ts` gives. Every error is a ConfigError: one sentence naming the
 * variable, which stops the process.
 */

import { variable, type Variable } from './variables.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Readonly<Record<string, string | undefined>>;

/** The trimmed text of a declared variable; unset and empty are the same. */
export function readText(env: Env, name: string): string | undefined {
  variable(name);
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The JSON Schema keywords of a declaration that reading a value needs. */
interface Keywords {
  readonly type?: string;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
}

function declared(name: string, type: string): Variable & { schema: Keywords } {
  const found = variable(name) as Variable & { schema: Keywords };
  if (found.schema.type !== type && !(type === 'enum' && Array.isArray(found.schema.enum))) {
    throw new Error(`${name} is not declared as ${type}`);
  }
  return found;
}

/** A whole number within the declared minimum and maximum, or the declared default. */
export function readInteger(env: Env, name: string): number {
  const { schema, default: fallback } = declared(name, 'integer');
  const raw = readText(env, name);
  const [min, max] = [schema.minimum ?? -Infinity, schema.maximum ?? Infinity];
  if (raw === undefined) {
    if (typeof fallback !== 'number') throw new Error(`${name} declares no default`);
    return fallback;
  }
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${raw}".`);
  }
  return value;
}

/** One of the declared values; unset gives the default, or undefined where none is declared. */
export function readChoice<T extends string>(env: Env, name: string): T | undefined {
  const { schema, default: fallback } = declared(name, 'enum');
  const allowed = schema.enum ?? [];
  const raw = readText(env, name);
  if (raw === undefined) return fallback as T | undefined;
  if (!allowed.includes(raw)) {
    throw new ConfigError(
      allowed.length === 1
        ? `${name} accepts only "${allowed[0]}", not "${raw}".`
        : `${name} must be one of ${allowed.join(', ')}, not "${raw}".`,
    );
  }
  return raw as T;
}

/** One of the declared values, or the declared default (which the variable must have). */
export function readSetting<T extends string>(env: Env, name: string): T {
  const value = readChoice<T>(env, name);
  if (value === undefined) throw new Error(`${name} declares no default`);
  return value;
}

/** true or false, or the declared default. */
export function readFlag(env: Env, name: string): boolean {
  const { default: fallback } = declared(name, 'boolean');
  const raw = readText(env, name);
  if (raw === undefined) return fallback === true;
  if (raw !== 'true' && raw !== 'false') {
    throw new ConfigError(`${name} must be one of true, false, not "${raw}".`);
  }
  return raw === 'true';
}

/** The comma-separated items of a variable, trimmed, empty ones dropped; unset: undefined. */
export function readList(env: Env, name: string): string[] | undefined {
  const raw = readText(env, name);
  if (raw === undefined) return undefined;
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The declared default of a text variable (REDIS_URL, QUEUE_PREFIX, …). */
export function defaultText(name: string): string {
  const fallback = variable(name).default;
  if (typeof fallback !== 'string') throw new Error(`${name} declares no text default`);
  return fallback;
}

/**
 * What errors and logs may show of a URL: its scheme and host, never its credentials, and `/…`
 * for a path or query that was cut (a webhook's path or a query's token can be the secret);
 * undefined when it is no URL at all. Every URL-valued variable is shown through this.
 */
export function shownUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const rest = url.pathname.replace(/^\/$/, '') + url.search + url.hash;
  const origin = url.host === '' ? url.protocol : `${url.protocol}//${url.host}`;
  return rest === '' ? origin : `${origin}${url.host === '' ? '' : '/'}…`;
}

/** `redis://` or `http://` from `redis:`, for sentences. */
const schemeOf = (protocol: string): string => `${protocol}//`;

/**
 * A URL of one of `protocols` (`'http:'`, …); unset: undefined; anything else stops the process
 * with a sentence that shows the value only through `shownUrl`.
 */
export function readUrl(
  env: Env,
  name: string,
  protocols: readonly string[],
  kind: string,
): string | undefined {
  const raw = readText(env, name);
  if (raw === undefined) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== undefined && protocols.includes(protocol)) return raw;
  const shown = shownUrl(raw);
  const expected = `${name} must be ${kind} ${protocols.map(schemeOf).join(' or ')} URL`;
  throw new ConfigError(
    shown === undefined ? `${expected}; its value is not one.` : `${expected}, not "${shown}".`,
  );
}

/** An http:// or https:// URL (PROMETHEUS_URL, NOTIFY_URL, K_SINK); unset: undefined. */
export function readHttpUrl(env: Env, name: string): string | undefined {
  return readUrl(env, name, ['http:', 'https:'], 'an');
}
