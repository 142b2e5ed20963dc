import type { Redis } from 'ioredis';
import { runOwnersKey, runSentPodsKey } from '../queue/names.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import { withLuaCommands } from '../queue/lua-commands.js';
import type { FirstBounces } from './others-down.js';
import { RECORD_CHOSEN } from './sent-pods-script.js';
import type { SiblingChoice } from './sibling-down.js';

/**
 * What one run keeps of its own beside the directive's sent pods (`SentPods`), for as long as the
 * run lasts: its selectors' choices, which of them recorded each pod as sent, and the second each
 * owner first had a pod sent a bounce. Per (directive, generation, runKey).
 */
export class RunSentRecords {
  protected readonly runRedis: Redis & RunCommands;

  constructor(
    redis: Redis,
    protected readonly prefix: string,
    /** How long a run's records are kept: past the run's end, however long it waits. */
    protected readonly runTtlMs: number,
  ) {
    this.runRedis = withLuaCommands<RunCommands>(redis, {
      podBouncerRecordChosen: { numberOfKeys: 1, lua: RECORD_CHOSEN },
    });
  }

  /**
   * Registers the selector's choice and maxUnavailable for the run's other selectors to count
   * against (several selectors at once only; once: a re-run keeps the first).
   */
  async registerChoice(data: SelectorJobData, choice: SiblingChoice): Promise<void> {
    if (data.order === undefined) return;
    await this.runRedis.podBouncerRecordChosen(
      this.runSentKey(data),
      String(data.selectorIndex),
      JSON.stringify(choice),
      String(this.runTtlMs),
    );
  }

  /**
   * The choices of the run's other selectors that chose any of `uids`, by index: what a chunk of
   * this selector's may take down of theirs.
   */
  async siblingChoices(
    data: SelectorJobData,
    uids: readonly string[],
  ): Promise<Map<string, SiblingChoice>> {
    const found = new Map<string, SiblingChoice>();
    if (data.order === undefined || uids.length === 0) return found;
    const key = this.runSentKey(data);
    const lists = await this.runRedis.hmget(key, ...uids.map((uid) => `p:${uid}`));
    const mine = String(data.selectorIndex);
    const others = new Set(lists.flatMap((list) => (list ?? '').split(' ')));
    const indexes = [...others].filter((index) => index !== '' && index !== mine);
    if (indexes.length === 0) return found;
    const raws = await this.runRedis.hmget(key, ...indexes.map((index) => `s:${index}`));
    raws.forEach((raw, at) => {
      const index = indexes[at];
      if (raw !== null && index !== undefined) found.set(index, JSON.parse(raw) as SiblingChoice);
    });
    return found;
  }

  /** The choice of the run's selector `index`, if it registered one. */
  async siblingChoiceOf(data: SelectorJobData, index: string): Promise<SiblingChoice | undefined> {
    const raw = await this.runRedis.hget(this.runSentKey(data), `s:${index}`);
    return raw === null ? undefined : (JSON.parse(raw) as SiblingChoice);
  }

  /** Of `uids`, those another selector of this run has recorded as sent. */
  async sentBySiblings(data: SelectorJobData, uids: readonly string[]): Promise<string[]> {
    if (data.order === undefined || uids.length === 0) return [];
    const holders = await this.runRedis.hmget(this.runSentKey(data), ...uids);
    const mine = String(data.selectorIndex);
    return uids.filter((_, at) => holders[at] != null && holders[at] !== mine);
  }

  protected runSentKey(data: SelectorJobData): string {
    return runSentPodsKey(this.prefix, data.directive.uid, data.generation, data.runKey);
  }

  /**
   * The owners this job's run sent a bounce to a pod of, any selector, with the second of the
   * first. Read after listing the pods: a replacement listed was recorded before its pod was sent.
   */
  async firstBounces(data: SelectorJobData): Promise<FirstBounces> {
    const raw = await this.runRedis.hgetall(this.runOwnersKey(data));
    return new Map(Object.entries(raw).map(([owner, since]) => [owner, Number(since)]));
  }

  protected runOwnersKey(data: SelectorJobData): string {
    return runOwnersKey(this.prefix, data.directive.uid, data.generation, data.runKey);
  }
}

/** The run's registration script (`RECORD_CHOSEN`), as ioredis defines it on the client. */
interface RunCommands {
  podBouncerRecordChosen(...args: string[]): Promise<number>;
}
