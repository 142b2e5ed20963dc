/**
 * `GET /v1/directives/:ns/:name` as the client trusts it: every field `status` shows checked for
 * its type and bounds, every string made plain. A server is not trusted to be pod-bouncer: one
 * selector index of 50,000,000 would otherwise make `status` draw fifty million lines.
 */

import { MAX_SELECTORS_CEILING } from '../directive/bounds.js';
import { ClientError } from './api-client.js';
import type { DirectiveView } from './status-view.js';
import { plainText } from './terminal-text.js';

/** The most characters of one server string shown (an error, a message, a state). */
const MAX_TEXT = 1000;
/** A status has a few conditions (Ready, Stalled); many more is not a pod-bouncer answer. */
const MAX_CONDITIONS = 32;
/** Pods one selector bounced; only their count is shown. */
const MAX_PODS = 1_000_000;

type Fields = Record<string, unknown>;

function malformed(what: string): never {
  throw new ClientError(`pod-bouncer's answer is not a directive's status: ${what}.`);
}

function record(value: unknown, at: string): Fields {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Fields;
  return malformed(`${at} is not an object`);
}

function optionalText(value: unknown, at: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return malformed(`${at} is not a string`);
  // Cut before it is cleaned (bounded work), and never in the middle of a surrogate pair.
  return plainText(value.slice(0, MAX_TEXT)).replace(/[\ud800-\udbff]$/, '');
}

function text(value: unknown, at: string): string {
  return optionalText(value, at) ?? malformed(`${at} is missing`);
}

function list(value: unknown, at: string, most: number): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return malformed(`${at} is not a list`);
  if (value.length > most) return malformed(`${at} has ${value.length} entries, more than ${most}`);
  return value;
}

function selectorIndex(value: unknown, at: string): number {
  if (
    Number.isInteger(value) &&
    (value as number) >= 0 &&
    (value as number) < MAX_SELECTORS_CEILING
  )
    return value as number;
  const shown = typeof value === 'number' ? String(value) : typeof value;
  return malformed(
    `${at}.selectorIndex is ${shown}, not one from 0 to ${MAX_SELECTORS_CEILING - 1}`,
  );
}

function jobOf(value: unknown, at: string): DirectiveView['jobs'][number] {
  const job = record(value, at);
  const index = selectorIndex(job.selectorIndex, at);
  const failedReason = optionalText(job.failedReason, `${at}.failedReason`);
  return {
    selectorIndex: index,
    state: text(job.state, `${at}.state`),
    ...(failedReason !== undefined ? { failedReason } : {}),
  };
}

type Condition = NonNullable<DirectiveView['status']['conditions']>[number];

function conditionOf(value: unknown, at: string): Condition {
  const condition = record(value, at);
  const reason = optionalText(condition.reason, `${at}.reason`);
  const message = optionalText(condition.message, `${at}.message`);
  return {
    type: text(condition.type, `${at}.type`),
    status: text(condition.status, `${at}.status`),
    ...(reason !== undefined ? { reason } : {}),
    ...(message !== undefined ? { message } : {}),
  };
}

function bouncedOf(value: unknown, at: string): { bouncedPods: string[] } {
  const pods = list(record(value, at).bouncedPods, `${at}.bouncedPods`, MAX_PODS);
  return { bouncedPods: pods.map((_pod, i) => text(_pod, `${at}.bouncedPods[${i}]`)) };
}

function statusOf(value: unknown): DirectiveView['status'] {
  const status = value === undefined ? {} : record(value, 'status');
  const state = optionalText(status.state, 'status.state');
  const error = optionalText(status.error, 'status.error');
  const podsBounced = list(status.podsBounced, 'status.podsBounced', MAX_SELECTORS_CEILING);
  const conditions = list(status.conditions, 'status.conditions', MAX_CONDITIONS);
  return {
    ...(state !== undefined ? { state } : {}),
    ...(error !== undefined ? { error } : {}),
    podsBounced: podsBounced.map((entry, i) => bouncedOf(entry, `status.podsBounced[${i}]`)),
    conditions: conditions.map((entry, i) => conditionOf(entry, `status.conditions[${i}]`)),
  };
}

function generationOf(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (Number.isSafeInteger(value) && (value as number) >= 0) return value as number;
  return malformed('generation is not a whole number');
}

/**
 * The view `status` renders, from the api's answer; `directive` is the reference asked for when
 * the answer has none. A malformed answer is a ClientError naming the field.
 */
export function directiveViewOf(body: Fields, directive: string): DirectiveView {
  const generation = generationOf(body.generation);
  const issuedAt = optionalText(body.issuedAt, 'issuedAt');
  if (body.paused !== undefined && typeof body.paused !== 'boolean') {
    malformed('paused is not true or false');
  }
  return {
    directive: optionalText(body.directive, 'directive') ?? directive,
    ...(generation !== undefined ? { generation } : {}),
    ...(issuedAt !== undefined ? { issuedAt } : {}),
    ...(body.paused === true ? { paused: true } : {}),
    status: statusOf(body.status),
    jobs: list(body.jobs, 'jobs', MAX_SELECTORS_CEILING).map((job, i) => jobOf(job, `jobs[${i}]`)),
  };
}
