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

/** A URL of one of `protocols` (`'http:'`, …); unset: undefined; anything else: `message`. */
export function readUrl(
  env: Env,
  name: string,
  protocols: readonly string[],
  message: string,
): string | undefined {
  const raw = readText(env, name);
  if (raw === undefined) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === undefined || !protocols.includes(protocol)) throw new ConfigError(message);
  return raw;
}

/** An http:// or https:// URL (PROMETHEUS_URL, NOTIFY_URL, K_SINK); unset: undefined. */
export function readHttpUrl(env: Env, name: string): string | undefined {
  const raw = readText(env, name);
  const message = `${name} must be an http:// or https:// URL, not "${raw}".`;
  return readUrl(env, name, ['http:', 'https:'], message);
}
