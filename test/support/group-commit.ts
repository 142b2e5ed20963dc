import { randomBytes } from 'node:crypto';
import { FlowProducer } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { GroupCommit, type GroupCommitDeps } from '../../src/queue/group-commit.js';
import { REDIS_URL, deletePrefix } from './redis.js';

export interface GroupCommitFixture {
  readonly prefix: string;
  readonly redis: Redis;
  readonly commits: GroupCommit;
}

/**
 * A GroupCommit on the real Redis under a prefix of the suite's own, opened before its tests and
 * closed (keys removed) after them. `beforeClose` runs first on close, e.g. to release held commits.
 */
export function useGroupCommit(
  name: string,
  options: Partial<Pick<GroupCommitDeps, 'retentionSeconds' | 'durable'>> = {},
  beforeClose?: () => void,
): GroupCommitFixture {
  const prefix = `pbtest-${name}-${randomBytes(3).toString('hex')}`;
  let redis: Redis | undefined;
  let flows: FlowProducer | undefined;
  let commits: GroupCommit | undefined;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    const producer = new FlowProducer({ connection: redis, prefix });
    flows = producer;
    commits = new GroupCommit({
      flows: async () => producer,
      redis,
      prefix,
      retentionSeconds: 600,
      ...options,
    });
  });
  afterAll(async () => {
    beforeClose?.();
    await flows?.close();
    redis?.disconnect();
    await deletePrefix(prefix);
  });
  return {
    prefix,
    get redis() {
      return redis!;
    },
    get commits() {
      return commits!;
    },
  };
}
