import { describe, expect, it } from 'vitest';
import { FollowUps } from '../../src/status/follow-ups.js';
import { createLogger } from '../../src/logger.js';

describe('follow-ups', () => {
  it('start after the current turn, and drain waits for every one, failed ones too', async () => {
    const followUps = new FollowUps({ busy: () => false });
    const log = createLogger('silent');
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    followUps.start(log, { failure: 'failed' }, async () => {
      order.push('write');
      await held;
      order.push('written');
    });
    followUps.start(log, { failure: 'failed' }, async () => {
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

describe('follow-ups under a burst', () => {
  const log = createLogger('silent');
  const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('run at most `concurrency` at once, the rest in arrival order as slots free up', async () => {
    const followUps = new FollowUps({ concurrency: 2, busy: () => false });
    const releases: (() => void)[] = [];
    const started: number[] = [];
    let running = 0;
    let most = 0;
    for (let index = 0; index < 5; index += 1) {
      followUps.start(log, { failure: 'failed' }, async () => {
        started.push(index);
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
      });
    }
    await tick();
    expect(started).toEqual([0, 1]);
    while (releases.length > 0) {
      releases.shift()!();
      await tick();
      await tick();
    }
    await followUps.drain();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it('a later write with the same key replaces the queued one; a started one is not replaced', async () => {
    const followUps = new FollowUps({ concurrency: 1, busy: () => false });
    const done: string[] = [];
    let release: () => void = () => undefined;
    followUps.start(log, { failure: 'failed', key: 'a' }, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      done.push('a1');
    });
    await tick();
    followUps.start(log, { failure: 'failed', key: 'b' }, async () => void done.push('b1'));
    followUps.start(log, { failure: 'failed', key: 'a' }, async () => void done.push('a2'));
    followUps.start(log, { failure: 'failed', key: 'b' }, async () => void done.push('b2'));
    expect(followUps.size).toBe(3);
    release();
    await followUps.drain();
    expect(done).toEqual(['a1', 'a2', 'b2']);
  });

  it('drops the oldest waiting write beyond maxWaiting, and says so', async () => {
    const lines: string[] = [];
    const counting = createLogger('warn', { write: (line: string) => void lines.push(line) });
    const followUps = new FollowUps({ concurrency: 1, maxWaiting: 2, busy: () => false });
    const done: number[] = [];
    for (let index = 0; index < 4; index += 1) {
      followUps.start(
        counting,
        { failure: 'could not mark', context: { n: index } },
        async () => void done.push(index),
      );
    }
    await followUps.drain();
    expect(done).toEqual([2, 3]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('too many writes waiting');
  });
});

describe('follow-ups while the process is busy answering', () => {
  const log = createLogger('silent');

  it('wait while busy and start once it is quiet', async () => {
    let busy = true;
    const followUps = new FollowUps({ busy: () => busy });
    const done: string[] = [];
    followUps.start(log, { failure: 'failed' }, async () => void done.push('write'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(done).toEqual([]);
    busy = false;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(done).toEqual(['write']);
  });

  it('also wait while a probe given later says busy (new events being committed)', async () => {
    let committing = true;
    const followUps = new FollowUps({ busy: () => false });
    followUps.holdWhile(() => committing);
    const done: string[] = [];
    followUps.start(log, { failure: 'failed' }, async () => void done.push('write'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(done).toEqual([]);
    committing = false;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(done).toEqual(['write']);
  });

  it('run anyway once the oldest has waited maxDelayMs, and at once when drained', async () => {
    const followUps = new FollowUps({ busy: () => true, maxDelayMs: 100 });
    const done: string[] = [];
    followUps.start(log, { failure: 'failed' }, async () => void done.push('late'));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(done).toEqual(['late']);

    const draining = new FollowUps({ busy: () => true, maxDelayMs: 60_000 });
    draining.start(log, { failure: 'failed' }, async () => void done.push('drained'));
    await draining.drain();
    expect(done).toEqual(['late', 'drained']);
  });

  it('at close drop what has not started and wait for what runs', async () => {
    const lines: string[] = [];
    const told = createLogger('info', { write: (line: string) => void lines.push(line) });
    let busy = false;
    const followUps = new FollowUps({ busy: () => busy });
    const done: string[] = [];
    let release: () => void = () => undefined;
    followUps.start(log, { failure: 'failed', key: 'a' }, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      done.push('running');
    });
    await new Promise((resolve) => setImmediate(resolve));
    busy = true;
    followUps.start(log, { failure: 'failed', key: 'b' }, async () => void done.push('held'));
    let closed = false;
    const closing = followUps.close(told).then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(done).toEqual(['running']);
    expect(lines.join('')).toContain('"dropped":1');
  });
});
