import type { Problem } from '../directive/validate.js';

/** The body is not JSON or fits none of the accepted shapes; `field` names what is wrong. */
export class BadEventError extends Error {
  override readonly name = 'BadEventError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** The body carries a directive that the CRD would reject. */
export class InvalidDirectiveError extends Error {
  override readonly name = 'InvalidDirectiveError';
  constructor(readonly problems: Problem[]) {
    super(problems.map((problem) => `${problem.field} ${problem.message}`).join('; '));
  }
}

/** The sentence a sender reads of an invalid directive (a 422's, a refusal's in controller mode). */
export function invalidDirectiveMessage(error: InvalidDirectiveError): string {
  return `The directive is invalid: ${error.message}.`;
}
