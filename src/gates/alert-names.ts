/**
 * The regex of an alerts gate, with PromQL's `=~` semantics: RE2 syntax, matched against the
 * whole alert name, `.` matching a newline too (as since Prometheus 3.0, which compiles
 * `^(?s:<regex>)$`). RE2 matches in time linear in the name, so a directive author's regex cannot
 * stall the event loop the way a backtracking engine can (`Kube(\w|\w|\w)*Z`); backreferences
 * and lookarounds do not exist in it.
 */

import { RE2JS, RE2JSException } from 're2js';

/** A compiled regex of alert names, or why RE2 refuses it. */
export type AlertNames = { matches(alertname: string): boolean } | { problem: string };

export function alertNames(pattern: string): AlertNames {
  try {
    const compiled = RE2JS.compile(pattern, RE2JS.DOTALL);
    return { matches: (alertname) => compiled.testExact(alertname) };
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    return { problem: reasonWithoutFlags(pattern) ?? error.message };
  }
}

/** RE2's reason as the author wrote the regex: with DOTALL the library quotes it after `(?s)`. */
function reasonWithoutFlags(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    return error instanceof RE2JSException ? error.message : undefined;
  }
}
