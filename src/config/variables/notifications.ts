/** Where status transitions are sent, and what is logged. */

import { Type } from 'typebox';

import { BOTH, config, fixed, values, inGroup } from './declare.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Where status transitions go, and in which format. */
export const NOTIFICATIONS = inGroup('Notifications', [
  {
    name: 'NOTIFY_URL',
    schema: Type.String({ pattern: '^https?://' }),
    roles: BOTH,
    doc: 'where status transitions are sent (http:// or https://)',
    chart: values('notifications.urlSecret'),
    secret: true,
  },
  {
    name: 'K_SINK',
    schema: Type.String({ pattern: '^https?://' }),
    roles: BOTH,
    doc: "where status transitions are sent when NOTIFY_URL is unset (Knative's SinkBinding sets it)",
    chart: fixed('injected by a Knative SinkBinding, not by the chart'),
  },
  {
    name: 'NOTIFY_FORMAT',
    schema: Type.Enum(['cloudevents', 'slack']),
    default: 'cloudevents',
    roles: BOTH,
    doc: 'cloudevents (structured JSON) or slack (a text message)',
    chart: values('notifications.format'),
  },
]);

/** The log level. */
export const LOGS = inGroup('Logs', [
  {
    name: 'LOG_LEVEL',
    schema: Type.Enum(LOG_LEVELS),
    default: 'info',
    roles: BOTH,
    doc: 'pino level; probes and static files are not logged at info',
    chart: config,
  },
]);
