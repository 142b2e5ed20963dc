import { pino, type Logger } from 'pino';
import { boundedText, LOG_TEXT_BYTES } from './bounded-text.js';

export type { Logger };

/**
 * Paths that may carry credentials anywhere a request, an error or a job is logged. Values are
 * replaced, never printed.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-signature-256"]',
  'headers.authorization',
  'headers["x-signature-256"]',
  'authorization',
  'token',
  'password',
  'secret',
  '*.token',
  '*.password',
  '*.secret',
  '*.data',
];

/**
 * A value with every string in it (a few levels deep) cut to LOG_TEXT_BYTES: an error's message
 * and stack repeat its causes' (an API server's answer that echoes a whole object, several times
 * over), and an alert name or a query may be as long as its sender likes.
 */
function boundedStrings(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return boundedText(value, LOG_TEXT_BYTES);
  if (typeof value !== 'object' || value === null || depth > 3) return value;
  if (Array.isArray(value)) return value.map((entry) => boundedStrings(entry, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key !== 'raw') copy[key] = boundedStrings(entry, depth + 1);
  }
  return copy;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'pod-bouncer' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: {
        err: (error: unknown) => boundedStrings(pino.stdSerializers.err(error as Error)),
        msg: (message: unknown) => boundedStrings(message),
      },
      formatters: {
        // "level":"info", not 30: readable in kubectl logs and matched by log pipelines as is.
        level: (label) => ({ level: label }),
        log: (fields) => boundedStrings(fields, 3) as Record<string, unknown>,
      },
    },
    destination,
  );
}

const LEVEL_METHODS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type LevelMethod = (typeof LEVEL_METHODS)[number];

/**
 * A request's logger, made on its first line: a request that writes nothing at the configured
 * level (every request at `LOG_LEVEL=warn`, a routine probe, a repeated event) costs no pino child,
 * and bindings set before the first line (who sent it) are serialized once, with the child. Lines
 * written are the child's own: the same bindings, redaction and level.
 */
class LazyChild {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private given: pino.Bindings,
    private readonly options: pino.ChildLoggerOptions,
  ) {}

  private real(): Logger {
    return (this.made ??= this.parent.child(this.given, this.options));
  }

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.real().child(bindings, options);
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  get levelVal(): number {
    if (this.made !== undefined) return this.made.levelVal;
    const level = this.options.level;
    if (level === undefined) return this.parent.levelVal;
    return level === 'silent' ? Infinity : (this.parent.levels.values[level] ?? Infinity);
  }

  get levels(): pino.LevelMapping {
    return this.parent.levels;
  }

  isLevelEnabled(level: string): boolean {
    if (this.made !== undefined) return this.made.isLevelEnabled(level);
    const value = this.parent.levels.values[level];
    return value !== undefined && value >= this.levelVal;
  }

  setBindings(bindings: pino.Bindings): void {
    if (this.made !== undefined) this.made.setBindings(bindings);
    else this.given = { ...this.given, ...bindings };
  }

  bindings(): pino.Bindings {
    return this.made?.bindings() ?? { ...this.parent.bindings(), ...this.given };
  }

  flush(callback?: (error?: Error) => void): void {
    this.parent.flush(callback);
  }

  silent(): void {}

  private write(level: LevelMethod, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const real = this.real();
    Reflect.apply(real[level], real, args);
  }

  /** One method per level on the prototype, each a `write` of its level: what pino's are. */
  static {
    for (const level of LEVEL_METHODS) {
      Object.defineProperty(LazyChild.prototype, level, {
        value(this: LazyChild, ...args: unknown[]): void {
          this.write(level, args);
        },
        writable: true,
        configurable: true,
      });
    }
  }
}

/** fastify's `childLoggerFactory`: request loggers made on their first line (see LazyChild). */
export function lazyChildLogger(
  logger: Logger,
  bindings: pino.Bindings,
  options: pino.ChildLoggerOptions,
): Logger {
  // Used through the Logger interface: every method fastify and this project call is provided.
  return new LazyChild(logger, bindings, options) as unknown as Logger;
}
