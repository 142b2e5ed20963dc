import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { NotifyConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { notifications } from '../metrics/registry.js';
import type { TransitionWritten } from '../status/writer.js';
import { notificationOf, render, type Notification } from './message.js';

/** Notifications have a queue of their own under QUEUE_PREFIX: a slow receiver never holds a selector job. */
export const NOTIFY_QUEUE_NAME = 'notify';

/** Attempts per notification: with the backoff below, about 40 minutes of retries. */
export const NOTIFY_ATTEMPTS = 45;
const MAX_BACKOFF_MS = 60_000;
/** How long the status writer's fire-and-forget enqueue may take before it is given up. */
const ENQUEUE_TIMEOUT_MS = 2000;
const SEND_TIMEOUT_MS = 10_000;
const DAY_SECONDS = 86_400;

/** 1 s, 2 s, 4 s … doubling up to a minute between attempts. */
export function notifyBackoff(attemptsMade: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attemptsMade - 1), MAX_BACKOFF_MS);
}

interface QueueSettings {
  connection: ConnectionOptions;
  prefix: string;
}

/**
 * The producer side, in every process that writes status: `onTransition` is the status writer's
 * hook. It enqueues and returns at once; an enqueue that fails or takes too long is logged and
 * counted, never thrown, so a notification outage cannot fail or delay a run.
 */
export class Notifier {
  private readonly queue: Queue<Notification>;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    queue: QueueSettings,
    private readonly log: Logger,
  ) {
    this.queue = new Queue<Notification>(NOTIFY_QUEUE_NAME, queue);
    this.queue.on('error', (error) => log.debug({ err: error }, 'notification queue error'));
  }

  readonly onTransition = (written: TransitionWritten): void => {
    const notification = notificationOf(written);
    if (notification === undefined) return;
    const done = this.enqueue(notification).finally(() => this.pending.delete(done));
    this.pending.add(done);
  };

  private async enqueue(notification: Notification): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([
        this.queue.add(notification.type, notification, {
          // Same transition, same job: a repeated write while the job is kept adds nothing.
          jobId: notification.id,
          attempts: NOTIFY_ATTEMPTS,
          backoff: { type: 'notify' },
          removeOnComplete: { age: DAY_SECONDS },
          removeOnFail: { age: 7 * DAY_SECONDS },
        }),
        timeout,
      ]);
      notifications.inc({ outcome: 'enqueued' });
    } catch (error) {
      notifications.inc({ outcome: 'enqueue_failed' });
      this.log.warn(
        { err: error, notification: notification.id, type: notification.type },
        'could not enqueue a notification; it is not sent',
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for enqueues in flight (bounded by their timeout), then closes the queue. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    await this.queue.close();
  }
}

/**
 * One POST to the receiver; any answer but 2xx is an error (4xx other than 408/429: final). A
 * redirect is never followed: every notification carries the directive's status and pod names,
 * and a receiver (or whoever answers at its address) must not be able to send them elsewhere. It
 * is a failed delivery, retried at NOTIFY_URL with the backoff.
 */
async function send(config: NotifyConfig, job: Job<Notification>): Promise<void> {
  const request = render(job.data, config.format);
  const response = await fetch(config.url, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
  await response.body?.cancel();
  if (response.ok) return;
  const redirect =
    response.status >= 300 && response.status < 400 ? ' (a redirect, not followed)' : '';
  const message = `the notification receiver answered ${response.status}${redirect}`;
  const permanent =
    response.status >= 400 && response.status < 500 && ![408, 429].includes(response.status);
  throw permanent ? new UnrecoverableError(message) : new Error(message);
}

/** The consumer side, in worker processes: delivers at least once, retrying with backoff. */
export function startNotifyWorker(
  config: NotifyConfig,
  queue: QueueSettings,
  log: Logger,
): Worker<Notification> {
  const worker = new Worker<Notification>(NOTIFY_QUEUE_NAME, (job) => send(config, job), {
    ...queue,
    concurrency: 5,
    settings: { backoffStrategy: notifyBackoff },
  });
  worker.on('completed', () => notifications.inc({ outcome: 'delivered' }));
  worker.on('failed', (job, error) => {
    const final =
      job === undefined ||
      job.attemptsMade >= (job.opts.attempts ?? 1) ||
      error instanceof UnrecoverableError;
    notifications.inc({ outcome: final ? 'dropped' : 'retried' });
    // The receiver's URL may carry a secret (a Slack webhook): it is never logged.
    log.warn(
      {
        notification: job?.id,
        type: job?.name,
        attemptsMade: job?.attemptsMade,
        reason: error.message,
      },
      final
        ? 'notification dropped after its last attempt'
        : 'notification not delivered; retrying',
    );
  });
  worker.on('error', (error) => log.debug({ err: error }, 'notification worker error'));
  return worker;
}
