import { createHash } from 'node:crypto';
import { CloudEvent, HTTP } from 'cloudevents';
import type { DirectiveStatus } from '../directive/types.js';
import type { RunId } from '../queue/run-identity.js';
import { phaseChange, readyOf } from '../status/changes.js';
import type { TransitionWritten } from '../status/writer.js';

export type NotifyFormat = 'cloudevents' | 'slack';

/** What a notification job carries: everything needed to send it again, identically. */
export interface Notification {
  id: string;
  type: string;
  source: string;
  time: string;
  data: {
    directive: { namespace: string; name: string; uid: string; generation: number };
    run: RunId & { selector?: number };
    state: string | undefined;
    message: string;
    status: DirectiveStatus;
  };
}

/**
 * The notification of a written transition, or undefined when it moved the run into no new phase
 * (pods chosen, a wait's counts); its type is `io.pod-bouncer.directive.<phase>`. The id is
 * derived from the run and the phase only, so every delivery of the same transition, by any
 * process, carries the same id.
 */
export function notificationOf(
  written: TransitionWritten,
  now = new Date(),
): Notification | undefined {
  const kind = phaseChange(written.before, written.directive.status);
  if (kind === undefined) return undefined;
  const { uid, generation, namespace, name } = written.directive.metadata;
  const runKey = written.target.runKey ?? '0';
  const selector = written.target.selectorIndex;
  const id = createHash('sha256')
    .update([uid, generation, runKey, selector ?? '-', kind].join('|'))
    .digest('hex')
    .slice(0, 32);
  return {
    id,
    type: `io.pod-bouncer.directive.${kind}`,
    source: `/pod-bouncer/${namespace}/${name}`,
    time: now.toISOString(),
    data: {
      directive: { namespace, name, uid, generation },
      run: { uid, generation, runKey, ...(selector === undefined ? {} : { selector }) },
      state: written.directive.status?.state,
      message: readyOf(written.directive.status)?.message ?? written.event?.message ?? '',
      status: written.directive.status ?? {},
    },
  };
}

export interface HttpRequest {
  headers: Record<string, string>;
  body: string;
}

/**
 * Slack reads `<…>` as links and mentions (`<!channel>`, `<https://…|label>`): a message that
 * quotes a gate or a cause written by someone else must reach it as text, escaped as Slack asks.
 */
function slackEscaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A structured-mode CloudEvent (`application/cloudevents+json`), or Slack's `{"text": …}`. */
export function render(notification: Notification, format: NotifyFormat): HttpRequest {
  if (format === 'slack') {
    const { directive, state, message } = notification.data;
    const text = `pod-bouncer: ${directive.namespace}/${directive.name} is ${state ?? 'unknown'} (generation ${directive.generation}): ${slackEscaped(message)}`;
    return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) };
  }
  const event = new CloudEvent({
    specversion: '1.0',
    id: notification.id,
    type: notification.type,
    source: notification.source,
    subject: `${notification.data.directive.namespace}/${notification.data.directive.name}`,
    time: notification.time,
    datacontenttype: 'application/json',
    data: notification.data,
  });
  const message = HTTP.structured(event);
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(message.headers)) headers[key] = String(value);
  return { headers, body: String(message.body) };
}
