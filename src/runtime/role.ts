import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { observeTransition } from '../metrics/directives.js';
import { Notifier } from '../notify/notifier.js';
import type { StatusWriterOptions } from '../status/writer.js';

/** Something started that must be stopped in order on shutdown. */
export interface Role {
  close(): Promise<void>;
}

/** Without ALLOWED_NAMESPACES a credential may bounce anything the worker's RBAC reaches: say so. */
export function warnIfEveryNamespace(config: Config, log: Logger): void {
  if (config.allowedNamespaces !== undefined) return;
  log.warn(
    'ALLOWED_NAMESPACES is not set: directives may bounce pods in every namespace the worker can reach',
  );
}

/**
 * What every status write is observed by: the directive metrics and, with NOTIFY_URL or K_SINK,
 * a notification enqueued on its own queue (with `redis`, a fail-fast producer connection).
 */
export function transitionObservers(
  config: Config,
  redis: Redis | undefined,
  log: Logger,
): { options: StatusWriterOptions; notifier: Notifier | undefined } {
  const notifier =
    config.notify && redis
      ? new Notifier(
          { connection: redis, prefix: config.queuePrefix },
          log.child({ component: 'notify' }),
        )
      : undefined;
  return {
    notifier,
    options: {
      onTransition: (written) => {
        observeTransition(written);
        notifier?.onTransition(written);
      },
    },
  };
}
