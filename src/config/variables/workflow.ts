/** How the worker runs a directive's selectors. */

import { Type } from 'typebox';

import { BOUNCE_MODES } from '../../directive/types.js';
import { WORK, config, integer, inGroup } from './declare.js';

/** Defaults of a selector, and the pace and patience of the worker. */
export const WORKFLOW = inGroup('Workflow', [
  {
    name: 'BOUNCE_MODE',
    schema: Type.Enum([...BOUNCE_MODES]),
    default: 'evict',
    roles: WORK,
    doc: 'bounceMode of a selector that sets none',
    chart: config,
  },
  {
    name: 'DEFAULT_MAX_UNAVAILABLE',
    schema: Type.Union([
      Type.Integer({ minimum: 1 }),
      Type.String({ pattern: '^([1-9]|[1-9][0-9]|100)%$' }),
    ]),
    default: '25%',
    roles: WORK,
    doc: 'maxUnavailable of a selector that sets none; 100% bounces its pods all at once',
    chart: config,
  },
  {
    name: 'WATCH_DIRECTIVES',
    schema: Type.Boolean(),
    default: false,
    roles: WORK,
    doc: 'controller mode: workers watch the directives of ALLOWED_NAMESPACES and start their runs without an event',
    chart: config,
  },
  {
    name: 'WORKER_CONCURRENCY',
    schema: integer(1, 1000),
    default: 10,
    roles: WORK,
    doc: 'jobs processed at once per worker process',
    chart: config,
  },
  {
    name: 'POLL_INTERVAL_MS',
    schema: integer(10, 3_600_000),
    default: 1000,
    roles: WORK,
    doc: 're-check interval of a waiting job when no watch event wakes it',
    chart: config,
  },
  {
    name: 'READINESS_TIMEOUT_SECONDS',
    schema: integer(1, 86_400),
    default: 600,
    roles: WORK,
    doc: 'how long a selector waits for Ready replacements',
    chart: config,
  },
  {
    name: 'ROOT_CERT_SYNC_TIMEOUT_SECONDS',
    schema: integer(1, 86_400),
    default: 600,
    roles: WORK,
    doc: 'how long a selector waits for the root certificate to reach its namespace',
    chart: config,
  },
  {
    name: 'JOB_LOCK_MS',
    schema: integer(1000, 600_000),
    default: 30_000,
    roles: WORK,
    doc: "how long a worker's job lock lives: a killed worker's job is taken over after about this long",
    chart: config,
  },
]);
