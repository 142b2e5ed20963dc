import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { observeTransition } from '../metrics/directives.js';
import type { Notifier } from '../notify/notifier.js';
import type { StatusWriterOptions } from '../status/writer.js';

/** Something started that must be stopped in order on shutdown. */
export interface Role {
  close(): Promise<void>;
}

/**
 * Without ALLOWED_NAMESPACES a credential may bounce anything the worker's RBAC reaches: say so,
 * unless every namespace was chosen explicitly (`*`).
 */
export function warnIfEveryNamespace(config: Config, log: Logger): void {
  if (config.allowedNamespaces !== undefined || config.everyNamespaceChosen) return;
  log.warn(
    'ALLOWED_NAMESPACES is not set: directives may bounce pods in every namespace the worker can reach',
  );
}

/**
 * What every status write is observed by: the directive metrics and, with NOTIFY_URL or K_SINK,
 * the notifier (which enqueues a notification on its own queue). The role makes the notifier:
 * `serve` imports it (and BullMQ with it) only when notifications are on.
 */
export function transitionObservers(notifier: Notifier | undefined): StatusWriterOptions {
  return {
    onTransition: (written) => {
      observeTransition(written);
      notifier?.onTransition(written);
    },
  };
}
