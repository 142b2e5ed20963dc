import type { FlowProducer, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { QUEUE_NAME } from './names.js';
import { queueErrorListener } from './redis-watch.js';

interface Made {
  queue: Queue;
  flows: FlowProducer;
}

/**
 * The api's BullMQ queue and flow producer, made on first use. BullMQ is the largest library the
 * api loads (with its date and cron libraries, a fifth of `serve`'s start-up), and neither the
 * probes nor a process that has not yet been sent an event need it: the first request that does
 * (an event, a directive's jobs, a scrape of the job counts) loads it and waits.
 */
export class ApiQueues {
  private making: Promise<Made> | undefined;
  private current: Made | undefined;

  constructor(
    private readonly connection: { connection: Redis; prefix: string },
    private readonly log: Logger,
  ) {}

  private make(): Promise<Made> {
    this.making ??= import('./bullmq-classes.js').then(({ FlowProducer, Queue }) => {
      const queue = new Queue(QUEUE_NAME, this.connection);
      const flows = new FlowProducer(this.connection);
      // Without listeners BullMQ prints each connection error with console.error.
      queue.on('error', queueErrorListener(this.log, 'queue'));
      flows.on('error', queueErrorListener(this.log, 'flow producer'));
      this.current = { queue, flows };
      return this.current;
    });
    return this.making;
  }

  async queue(): Promise<Queue> {
    return (await this.make()).queue;
  }

  async flows(): Promise<FlowProducer> {
    return (await this.make()).flows;
  }

  /** The queue if it was made already. */
  made(): Queue | undefined {
    return this.current?.queue;
  }

  /** Closes what was made (nothing, if no request needed it). */
  async close(): Promise<void> {
    const made = await this.making?.catch(() => undefined);
    if (made === undefined) return;
    await Promise.allSettled([made.queue.close(), made.flows.close()]);
  }
}
