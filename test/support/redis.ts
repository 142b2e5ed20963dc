import { deletePrefix as deleteKeys } from '../../src/stack/sim-stack.js';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** Removes every key under a test's own prefix; never touches anything else on the shared Redis. */
export async function deletePrefix(prefix: string): Promise<void> {
  await deleteKeys(REDIS_URL, prefix);
}
