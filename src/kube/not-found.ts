import { NotFoundError } from '../errors.js';

/**
 * The answer of a read, or `undefined` when the object does not exist (404): for callers to whom
 * "absent" is an answer, not a failure. Every other error is rethrown unchanged.
 */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}
