import { pino, type Logger } from 'pino';

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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'pod-bouncer' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // "level":"info", not 30: readable in kubectl logs and matched by log pipelines as is.
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
