// Ingest refuses in its own words; the HTTP layer answers each refusal as it did when ingest spoke
// HTTP, and controller mode's verdict stays the one a sender's answer implies.
import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../src/controller/refusal.js';
import { NotFoundError, PermanentError, TransientError } from '../../src/errors.js';
import { BadEventError, InvalidDirectiveError } from '../../src/events/errors.js';
import {
  CloudEventIdConflictError,
  FieldManagerConflictError,
  ForbiddenError,
  TooManyRunsError,
} from '../../src/ingest/errors.js';
import { domainProblem } from '../../src/ingress/http-errors.js';

describe('ingest refusals as HTTP answers', () => {
  it('keeps each status, code, message and header', () => {
    const answer = (error: Error): unknown => {
      const problem = domainProblem(error);
      return problem && [problem.statusCode, problem.code, problem.message, problem.headers];
    };
    expect(answer(new ForbiddenError('Not allowed: x.'))).toEqual([
      403,
      'forbidden',
      'Not allowed: x.',
      {},
    ]);
    expect(answer(new TooManyRunsError('wait', 7))).toEqual([
      429,
      'too_many_runs',
      'wait',
      { 'retry-after': '7' },
    ]);
    expect(answer(new FieldManagerConflictError('owned'))).toEqual([409, 'conflict', 'owned', {}]);
    expect(answer(new CloudEventIdConflictError('used'))).toEqual([
      409,
      'cloudevent_id_conflict',
      'used',
      {},
    ]);
  });

  it("gives controller mode the verdict a sender's answer implies", () => {
    const errors = [
      new ForbiddenError('Not allowed: x.'),
      new TooManyRunsError('wait', 7),
      new FieldManagerConflictError('owned'),
      new CloudEventIdConflictError('used'),
      new BadEventError('metadata.name', 'must be a name'),
      new InvalidDirectiveError([{ field: 'spec', message: 'is wrong' }]),
      new PermanentError('refused', 422),
      new PermanentError('forbidden by RBAC', 403),
      new NotFoundError('gone'),
      new TransientError('Redis is unreachable', 5),
      new Error('unexpected'),
    ];
    for (const error of errors) {
      const problem = domainProblem(error);
      const status = problem?.statusCode;
      const expected =
        status === 404
          ? { kind: 'gone' }
          : status === 429
            ? { kind: 'later', afterMs: Number(problem!.headers['retry-after']) * 1000 }
            : status !== undefined && [400, 403, 422].includes(status)
              ? { kind: 'refused', message: problem!.message }
              : { kind: 'later' };
      expect(verdictOf(error), error.name).toEqual(expected);
    }
  });
});
