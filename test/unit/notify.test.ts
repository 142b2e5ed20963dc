import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { Directive } from '../../src/directive/types.js';
import { notificationOf, render } from '../../src/notify/message.js';
import { notifyBackoff } from '../../src/notify/notifier.js';
import { accepted, bouncing, failed, finished, podsChosen } from '../../src/status/transitions.js';
import type { TransitionWritten } from '../../src/status/writer.js';
import type { Transition } from '../../src/status/transitions.js';

const directive = (state: string, error = ''): Directive => ({
  apiVersion: 'internal.gloo.solo.io/v2',
  kind: 'PodBounceDirective',
  metadata: { namespace: 'ns', name: 'd', uid: 'u-1', generation: 3, resourceVersion: '9' },
  spec: { podsToBounce: [] },
  status: { observedGeneration: 3, state: state as 'FAILED', error },
});

const written = (transition: Transition, state: string, error?: string): TransitionWritten => ({
  target: { namespace: 'ns', name: 'd', uid: 'u-1', generation: 3, runKey: '1700000000000' },
  transition,
  directive: directive(state, error),
});

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
    const a = notificationOf(written(finished(3), 'FINISHED'), new Date(1));
    const b = notificationOf(written(finished(3), 'FINISHED'), new Date(2));
    expect(a?.id).toBe(b?.id);
    expect(a?.id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives distinct ids to distinct transitions, selectors and runs', () => {
    const ids = [
      notificationOf(written(accepted(3, 2), 'PENDING')),
      notificationOf(written(bouncing(3, 0), 'BOUNCING_PODS')),
      notificationOf(written(failed(3, 0, 'timed out'), 'FAILED', 'selector 0: timed out')),
      notificationOf(written(failed(3, 1, 'timed out'), 'FAILED', 'selector 1: timed out')),
      notificationOf(written(finished(3), 'FINISHED')),
      notificationOf({
        ...written(finished(3), 'FINISHED'),
        target: { ...written(finished(3), 'FINISHED').target, runKey: '0' },
      }),
    ].map((n) => n?.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names the type from the transition; an aborted failure is "aborted"; pods chosen is not told', () => {
    expect(notificationOf(written(bouncing(3, 0), 'BOUNCING_PODS'))?.type).toBe(
      'io.pod-bouncer.directive.bouncing',
    );
    expect(
      notificationOf(written(failed(3, 1, 'aborted'), 'FAILED', 'selector 1: aborted'))?.type,
    ).toBe('io.pod-bouncer.directive.aborted');
    expect(notificationOf(written(podsChosen(3, 0, ['p']), 'BOUNCING_PODS'))).toBeUndefined();
  });

  it('renders a valid structured CloudEvent, or Slack text', () => {
    const notification = notificationOf(written(finished(3), 'FINISHED'))!;
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

  it('backs off from 1 s, doubling, up to a minute', () => {
    expect([1, 2, 3, 7, 8, 30].map(notifyBackoff)).toEqual([
      1000, 2000, 4000, 60_000, 60_000, 60_000,
    ]);
  });
});
