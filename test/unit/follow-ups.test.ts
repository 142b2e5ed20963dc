import { describe, expect, it } from 'vitest';
import { FollowUps } from '../../src/ingress/follow-ups.js';
import { createLogger } from '../../src/logger.js';

describe('follow-ups', () => {
  it('start after the current turn, and drain waits for every one, failed ones too', async () => {
    const followUps = new FollowUps();
    const log = createLogger('silent');
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    followUps.start(log, 'failed', {}, async () => {
      order.push('write');
      await held;
      order.push('written');
    });
    followUps.start(log, 'failed', {}, async () => {
      throw new Error('refused');
    });
    order.push('answer');
    expect(followUps.size).toBe(2);
    let drained = false;
    const drain = followUps.drain().then(() => {
      drained = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['answer', 'write']);
    expect(drained).toBe(false);
    release();
    await drain;
    expect(order).toEqual(['answer', 'write', 'written']);
    expect(followUps.size).toBe(0);
  });
});
