import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { notificationOf, render } from '../../src/notify/message.js';
import { notifyBackoff } from '../../src/notify/notifier.js';
import type { DirectiveStatus } from '../../src/directive/types.js';
import { transitionFor } from '../../src/status/moments.js';
import { accepted } from '../../src/status/moments.js';
import type { Transition } from '../../src/status/projection.js';
import { selectorRun, writtenTransition } from '../support/written.js';

const TARGET = { namespace: 'ns', name: 'd', uid: 'u-1', generation: 3, runKey: '1700000000000' };
const written = (
  transition: Transition,
  before: DirectiveStatus = { observedGeneration: 3 },
  selectorIndex?: number,
) =>
  writtenTransition(
    transition,
    before,
    selectorIndex === undefined ? TARGET : { ...TARGET, selectorIndex },
  );
const started = (selector: number) => transitionFor(selectorRun(selector), { kind: 'started' });
const finished = () => transitionFor(selectorRun(1), { kind: 'finished' });
const failed = (selector: number, cause: string) =>
  transitionFor(selectorRun(selector), { kind: 'failed', cause });

describe('notification config', () => {
  it('is off without NOTIFY_URL or K_SINK, and NOTIFY_URL wins over K_SINK', () => {
    expect(loadConfig({}).notify).toBeUndefined();
    expect(loadConfig({ K_SINK: 'http://sink' }).notify).toEqual({
      url: 'http://sink',
      format: 'cloudevents',
    });
    expect(
      loadConfig({ K_SINK: 'http://sink', NOTIFY_URL: 'https://hook', NOTIFY_FORMAT: 'slack' })
        .notify,
    ).toEqual({ url: 'https://hook', format: 'slack' });
  });

  it.each([
    ['NOTIFY_URL', 'ftp://x', /^NOTIFY_URL must be an http:\/\/ or https:\/\/ URL/],
    ['K_SINK', 'not a url', /^K_SINK must be an http:\/\/ or https:\/\/ URL/],
    ['NOTIFY_FORMAT', 'teams', /^NOTIFY_FORMAT must be one of cloudevents, slack/],
  ])('stops on a bad %s with one sentence naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});

describe('notificationOf', () => {
  it('gives the same id to every delivery of a transition, whenever it is made', () => {
    const a = notificationOf(written(finished()), new Date(1));
    const b = notificationOf(written(finished()), new Date(2));
    expect(a?.id).toBe(b?.id);
    expect(a?.id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives distinct ids to distinct transitions, selectors and runs', () => {
    const ids = [
      notificationOf(written(accepted(3, 2), {})),
      notificationOf(written(started(0))),
      notificationOf(written(failed(0, 'timed out'), undefined, 0)),
      notificationOf(written(failed(1, 'timed out'), undefined, 1)),
      notificationOf(written(finished())),
      notificationOf({
        ...written(finished()),
        target: { ...written(finished()).target, runKey: '0' },
      }),
    ].map((n) => n?.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names the type from the transition; an aborted failure is "aborted"; pods chosen is not told', () => {
    expect(notificationOf(written(started(0)))?.type).toBe('io.pod-bouncer.directive.bouncing');
    expect(notificationOf(written(transitionFor(selectorRun(1), { kind: 'aborted' })))?.type).toBe(
      'io.pod-bouncer.directive.aborted',
    );
    // Pods chosen while already bouncing changes no Ready reason: not a transition people are told.
    const bouncing = written(started(0)).directive.status ?? {};
    const chosen = transitionFor(selectorRun(0), { kind: 'chosen', names: ['p'] });
    expect(notificationOf(written(chosen, bouncing))).toBeUndefined();
  });

  it('renders a valid structured CloudEvent, or Slack text', () => {
    const notification = notificationOf(written(finished()))!;
    const event = render(notification, 'cloudevents');
    expect(event.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
    expect(JSON.parse(event.body)).toMatchObject({
      specversion: '1.0',
      id: notification.id,
      source: '/pod-bouncer/ns/d',
      type: 'io.pod-bouncer.directive.finished',
      data: { run: { uid: 'u-1', generation: 3, runKey: '1700000000000' }, state: 'FINISHED' },
    });
    expect(JSON.parse(render(notification, 'slack').body)).toEqual({
      text: expect.stringMatching(/^pod-bouncer: ns\/d is FINISHED \(generation 3\)/),
    });
  });

  it('escapes Slack markup in the message: no mention or link reaches the channel as such', () => {
    const notification = notificationOf(written(finished()))!;
    notification.data.message =
      'gate alerts "<!channel>" closed: <https://evil.example/login|Click to approve> & more';
    const { text } = JSON.parse(render(notification, 'slack').body) as { text: string };
    expect(text).toContain(
      'gate alerts "&lt;!channel&gt;" closed: &lt;https://evil.example/login|Click to approve&gt; &amp; more',
    );
    expect(text).not.toMatch(/[<>]/);
  });

  it('backs off from 1 s, doubling, up to a minute', () => {
    expect([1, 2, 3, 7, 8, 30].map(notifyBackoff)).toEqual([
      1000, 2000, 4000, 60_000, 60_000, 60_000,
    ]);
  });
});
