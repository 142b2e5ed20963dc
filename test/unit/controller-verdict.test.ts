import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../src/controller/refusal.js';
import { NotFoundError, TransientError } from '../../src/errors.js';
import { BadEventError, InvalidDirectiveError } from '../../src/events/errors.js';
import { ForbiddenError, TooManyRunsError } from '../../src/ingest/errors.js';

describe('what controller mode does with the answer a sender would get', () => {
  it('refuses what cannot run: 400, 403 and 422, with the sentence a sender would read', () => {
    const invalid = new InvalidDirectiveError([{ field: 'spec.gates[0]', message: 'needs X' }]);
    expect(verdictOf(invalid)).toEqual({
      kind: 'refused',
      message: expect.stringMatching(/^The directive is invalid: spec\.gates\[0\]/),
    });
    expect(verdictOf(new BadEventError('metadata.name', 'must be a name'))).toMatchObject({
      kind: 'refused',
    });
    const forbidden = new ForbiddenError('The directive is not allowed: x.');
    expect(verdictOf(forbidden)).toEqual({
      kind: 'refused',
      message: 'The directive is not allowed: x.',
    });
  });

  it('tries again later after a spent run budget (its Retry-After) or an outage, never refuses', () => {
    const budget = new TooManyRunsError('wait', 120);
    expect(verdictOf(budget)).toEqual({ kind: 'later', afterMs: 120_000 });
    expect(verdictOf(new TransientError('Redis is unreachable', 5))).toEqual({ kind: 'later' });
    expect(verdictOf(new Error('unexpected'))).toEqual({ kind: 'later' });
  });

  it('leaves a directive deleted since alone', () => {
    expect(verdictOf(new NotFoundError('gone'))).toEqual({ kind: 'gone' });
  });
});
