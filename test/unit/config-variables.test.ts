// The declarations in src/config/variables.ts are the one list of variables: each is read by the
// code, each role's --help lists its own, and nothing reads a variable that is not declared.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { ROLE_ENV, envHelp } from '../../src/cli/env-help.js';
import { loadConfig } from '../../src/config.js';
import { readInteger, readText } from '../../src/config/environment.js';
import { VARIABLES, variablesOf } from '../../src/config/variables.js';

const src = fileURLToPath(new URL('../../src', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('variables.ts')
      ? [readFileSync(path, 'utf8')]
      : [];
  });
}

describe('the declared variables', () => {
  it('are each read by the code, by name', () => {
    const code = sources(src).join('\n');
    const unread = VARIABLES.filter((v) => !code.includes(`'${v.name}'`)).map((v) => v.name);
    expect(unread).toEqual([]);
  });

  it('are the only ones the code reads', () => {
    expect(() => readText({}, 'NOT_DECLARED')).toThrow(/not a declared variable/);
    expect(() => readInteger({}, 'LOG_LEVEL')).toThrow(/not declared as integer/);
    // loadConfig reads every variable it uses through the declarations: none throws as undeclared.
    expect(() => loadConfig({})).not.toThrow();
  });

  it("appear in each role's --help with their defaults, and only the role's", () => {
    for (const role of ['serve', 'work', 'all'] as const) {
      const help = envHelp(ROLE_ENV[role]);
      for (const variable of VARIABLES) {
        const listed = new RegExp(`^  ${variable.name} `, 'm').test(help);
        expect(listed, `${role} ${variable.name}`).toBe(variablesOf(role).includes(variable));
      }
    }
    const work = envHelp(ROLE_ENV.work);
    expect(work).toMatch(/^ {2}JOB_LOCK_MS +.*\(default 30000\)$/m);
    expect(work).toMatch(/^ {2}BOUNCE_MODE +.*\(default evict\)$/m);
    expect(envHelp(ROLE_ENV.serve)).toMatch(/^ {2}MAX_SELECTORS +.*\(default 1000\)$/m);
    expect(envHelp(ROLE_ENV.serve)).toMatch(/^ {2}REDIS_SENTINEL_PASSWORD /m);
  });
});
