// No log line of megabytes: an error whose cause quotes a whole object (a 422 body, JSON in a
// message, several times over in messages and stacks), a long message or field, each cut.
import { describe, expect, it } from 'vitest';

import { PermanentError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { LogCapture } from '../support/log-capture.js';

describe('log lines', () => {
  it('are cut to a few KB per string, errors and their causes included', () => {
    const capture = new LogCapture();
    const log = createLogger('info', capture);
    const huge = 'x'.repeat(1_000_000);
    const cause = Object.assign(new Error(`HTTP-Code: 422\nBody: ${huge}`), { body: huge });
    const error = new PermanentError(`write status: ${huge}`, 422, { cause });
    log.error({ err: error, why: huge, token: 'secret-token' }, `failed: ${huge}`);
    const [line] = capture.lines();
    expect(line!.length).toBeLessThan(32_768);
    const entry = JSON.parse(line!);
    expect(entry.msg.endsWith('…')).toBe(true);
    expect(entry.why.endsWith('…')).toBe(true);
    expect(entry.err.type).toBe('PermanentError');
    expect(entry.err.message).toMatch(/^write status: x+…$/);
    expect(entry.err.httpStatus).toBe(422);
    expect(entry.token).toBe('[redacted]');
  });
});
