/** Gates every directive gets, the Prometheus they ask, and the soak after each batch. */

import { Type } from 'typebox';

import { BOTH, WORK, config, integer, text, values, inGroup } from './declare.js';

/** Installation-wide gates, their Prometheus and timing, and the default soak. */
export const GATES = inGroup('Gates and soak', [
  {
    name: 'DEFAULT_SOAK_SECONDS',
    schema: integer(0, 86_400),
    default: 0,
    roles: WORK,
    doc: 'soakSeconds of a selector that sets none: how long to wait after each batch is Ready',
    chart: config,
  },
  {
    name: 'PROMETHEUS_URL',
    schema: Type.String({ pattern: '^https?://' }),
    roles: BOTH,
    doc: 'Prometheus HTTP API for alerts and query gates (required by them)',
    chart: config,
  },
  {
    name: 'PROMETHEUS_TOKEN_FILE',
    schema: text(),
    roles: BOTH,
    doc: 'a file holding the bearer token sent to Prometheus, read again at each request (a rotated token is used at once)',
    chart: values('prometheus.token.serviceAccountToken or prometheus.token.secret'),
  },
  {
    name: 'GATE_ALERTS',
    schema: text(),
    roles: BOTH,
    doc: 'an alerts gate (an RE2 regex of alert names, as PromQL =~) applied to every directive',
    chart: config,
  },
  {
    name: 'GATE_WINDOWS',
    schema: text(),
    roles: BOTH,
    doc: 'windows applied to every directive: Mon-Fri 02:00-05:00 Europe/Berlin; Sat,Sun 00:00-24:00',
    chart: config,
  },
  {
    name: 'GATE_INTERVAL_SECONDS',
    schema: integer(1, 3600),
    default: 30,
    roles: BOTH,
    doc: 'how often a closed gate is evaluated again (and how old a shared verdict may be)',
    chart: config,
  },
  {
    name: 'GATE_TIMEOUT_SECONDS',
    schema: integer(1, 604_800),
    default: 3600,
    roles: WORK,
    doc: 'how long an alerts or query gate may stay closed before the run fails (windows never time out)',
    chart: config,
  },
]);
