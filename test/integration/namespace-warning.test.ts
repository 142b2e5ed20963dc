import { describe, expect, it } from 'vitest';
import { startHarness } from '../support/harness.js';
import { LogCapture } from '../support/log-capture.js';

const WARNING = 'ALLOWED_NAMESPACES is not set';

describe('ALLOWED_NAMESPACES at start-up', () => {
  it('warns when every namespace is allowed, and not when a list is set', async () => {
    const open = new LogCapture();
    const h = await startHarness('ns-warn', { logDestination: open, env: { LOG_LEVEL: 'warn' } });
    await h.close();
    // Once per role: the api and the worker each say it.
    expect(open.lines().filter((line) => line.includes(WARNING))).toHaveLength(2);
    const { level } = JSON.parse(open.lines().find((line) => line.includes(WARNING))!);
    expect([40, 'warn']).toContain(level);

    const bounded = new LogCapture();
    const strict = await startHarness('ns-warn-set', {
      logDestination: bounded,
      env: { LOG_LEVEL: 'warn', ALLOWED_NAMESPACES: 'istio-system' },
    });
    await strict.close();
    expect(bounded.text()).not.toContain(WARNING);
  });
});
