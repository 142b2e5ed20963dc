// Which deletions reclaim keys: a uid the API server still holds under the name is not gone (a
// watch's DELETED is confirmed first); one it does not hold is reclaimed, and confirmed only once.
import { describe, expect, it } from 'vitest';
import { DeletedDirectives } from '../../src/queue/deleted-directives.js';
import { createLogger } from '../../src/logger.js';

const log = createLogger('silent');
const ref = { namespace: 'ns', name: 'mesh', uid: 'old-uid' };
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

function deletions(uidNow: string | undefined, answers: ('reclaimed' | 'busy')[]) {
  const asked: string[] = [];
  const reclaimed: string[] = [];
  const tracker = new DeletedDirectives({
    uidNow: (at) => {
      asked.push(`${at.namespace}/${at.name}`);
      return Promise.resolve(uidNow);
    },
    reclaim: (deleted) => {
      reclaimed.push(deleted.uid);
      return Promise.resolve(answers.shift() ?? 'reclaimed');
    },
    log,
  });
  return { tracker, asked, reclaimed };
}

describe('deleted directives', () => {
  it('reclaims nothing while the API server still holds the uid', async () => {
    const { tracker, asked, reclaimed } = deletions('old-uid', []);
    tracker.deleted(ref);
    await settle();
    expect(asked).toEqual(['ns/mesh']);
    expect(reclaimed).toEqual([]);
    tracker.close();
  });

  it('reclaims a uid gone, or replaced by a directive re-created under the name', async () => {
    for (const now of [undefined, 'new-uid']) {
      const { tracker, reclaimed } = deletions(now, []);
      tracker.deleted(ref);
      await settle();
      expect(reclaimed).toEqual(['old-uid']);
      tracker.close();
    }
  });

  it('tries again at once when told again while a job held it, asking the API server once', async () => {
    const { tracker, asked, reclaimed } = deletions(undefined, ['busy', 'reclaimed']);
    tracker.deleted(ref);
    await settle();
    expect(reclaimed).toEqual(['old-uid']);
    // The job that held it ended (a worker reports it): the next attempt need not wait 5 s.
    tracker.deleted(ref);
    await settle();
    expect(reclaimed).toEqual(['old-uid', 'old-uid']);
    expect(asked).toEqual(['ns/mesh']);
    tracker.close();
  });
});
