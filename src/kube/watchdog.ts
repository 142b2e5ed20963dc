/** Bookmark-learned limits never go below this: a busy process may answer late. */
const MIN_LEARNED_LIMIT_MS = 1000;
/** A stream has missed this many bookmark periods in a row before it counts as silent. */
const MISSED_BOOKMARKS = 3;

/** Watchdogs checked by one shared timer per period: a process watches hundreds of namespaces. */
const rounds = new Map<number, { timer: NodeJS.Timeout; watchdogs: Set<Watchdog> }>();

function enrol(watchdog: Watchdog, everyMs: number): void {
  let round = rounds.get(everyMs);
  if (round === undefined) {
    const watchdogs = new Set<Watchdog>();
    const timer = setInterval(() => {
      for (const each of watchdogs) each.check();
    }, everyMs);
    timer.unref();
    round = { timer, watchdogs };
    rounds.set(everyMs, round);
  }
  round.watchdogs.add(watchdog);
}

function withdraw(watchdog: Watchdog, everyMs: number): void {
  const round = rounds.get(everyMs);
  if (round === undefined || !round.watchdogs.delete(watchdog) || round.watchdogs.size > 0) return;
  clearInterval(round.timer);
  rounds.delete(everyMs);
}

/**
 * Tells when an open watch stream has been silent too long. A healthy stream that asked for
 * bookmarks hears something at least once per bookmark period, so once two bookmarks have shown
 * the server's period, silence for three of them is a stall; until then (or when that is longer)
 * the configured limit applies. The check runs on a timer shared by every watchdog of the same
 * period (one wake-up a second for all of a process's watches, not one each), which does not keep
 * the process alive.
 */
export class Watchdog {
  private lastHeard = Date.now();
  private lastBookmark: number | undefined;
  private bookmarkPeriodMs: number | undefined;
  private open = false;
  private readonly checkEveryMs: number;

  constructor(
    private readonly limitMs: number,
    private readonly onSilent: () => void,
  ) {
    this.checkEveryMs = Math.max(10, Math.min(1000, Math.floor(limitMs / 4)));
    enrol(this, this.checkEveryMs);
  }

  /** Called by the shared timer: reports a silent open stream once. */
  check(): void {
    if (this.open && Date.now() - this.lastHeard > this.silenceLimitMs()) {
      this.open = false;
      this.onSilent();
    }
  }

  /** How long the current stream may say nothing. */
  silenceLimitMs(): number {
    if (this.bookmarkPeriodMs === undefined) return this.limitMs;
    const learned = Math.max(MIN_LEARNED_LIMIT_MS, MISSED_BOOKMARKS * this.bookmarkPeriodMs);
    return Math.min(this.limitMs, learned);
  }

  opened(): void {
    this.open = true;
    this.lastHeard = Date.now();
    this.lastBookmark = undefined;
  }

  heard(bookmark: boolean): void {
    const now = Date.now();
    this.lastHeard = now;
    if (!bookmark) return;
    if (this.lastBookmark !== undefined) this.bookmarkPeriodMs = now - this.lastBookmark;
    this.lastBookmark = now;
  }

  closed(): void {
    this.open = false;
  }

  stop(): void {
    this.open = false;
    withdraw(this, this.checkEveryMs);
  }
}
