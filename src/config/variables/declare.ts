/**
 * The shape of a variable's declaration, and the few helpers the declarations in this folder share.
 */

import { Type, type TInteger, type TSchema, type TString } from 'typebox';

export type Role = 'serve' | 'work';

/**
 * How the chart sets a variable:
 * - `config`: from `config.<camelCase of the name>` in values.yaml, whose default is the program's;
 * - `values`: from another part of the values (a Secret reference, the Redis section, …);
 * - `fixed`: the chart decides it, for the reason given.
 */
export type ChartSource =
  | { readonly kind: 'config'; readonly required?: true }
  | { readonly kind: 'values'; readonly path: string }
  | { readonly kind: 'fixed'; readonly reason: string };

export interface Variable {
  readonly name: string;
  /** The value's type and bounds, as values.schema.json states them for the chart's `config`. */
  readonly schema: TSchema;
  /** The value used when the variable is unset or empty; absent: unset means "none" or "off". */
  readonly default?: string | number | boolean | readonly string[];
  /** What `--help` and the docs say instead of the default when it is not a plain value. */
  readonly defaultText?: string;
  readonly roles: readonly Role[];
  /** One line: what it does. */
  readonly doc: string;
  readonly chart: ChartSource;
  /** A credential: only ever read from a Secret by the chart, never logged. */
  readonly secret?: true;
  /** Heading it is listed under in the docs. */
  readonly group: Group;
}

export const GROUPS = [
  'Listener',
  'Redis',
  'Kubernetes API',
  'Authentication of the events endpoint',
  'What a credential may do',
  'Dashboard',
  'Workflow',
  'Gates and soak',
  'Notifications',
  'Logs',
] as const;
export type Group = (typeof GROUPS)[number];

export const BOTH: readonly Role[] = ['serve', 'work'];
export const SERVE: readonly Role[] = ['serve'];
export const WORK: readonly Role[] = ['work'];

export const config: ChartSource = { kind: 'config' };
/** A `config` value every install must give (values.schema.json requires it). */
export const requiredConfig: ChartSource = { kind: 'config', required: true };
export const values = (path: string): ChartSource => ({ kind: 'values', path });
export const fixed = (reason: string): ChartSource => ({ kind: 'fixed', reason });

export const integer = (minimum: number, maximum: number): TInteger =>
  Type.Integer({ minimum, maximum });
export const text = (): TString => Type.String({ minLength: 1 });

/** The declarations of one group: each is listed under the heading `group` in the docs. */
export function inGroup(
  group: Group,
  declarations: readonly Omit<Variable, 'group'>[],
): readonly Variable[] {
  return declarations.map((declaration) => ({ ...declaration, group }));
}
