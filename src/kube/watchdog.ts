/** Bookmark-learned limits never go below this: a busy process may answer late. */
const MIN_LEARNED_LIMIT_MS = 1000;
/** A stream has missed this many bookmark periods in a row before it counts as silent. */
const MISSED_BOOKMARKS = 3;

/**
 * Tells when an open watch stream has been silent too long. A healthy stream that asked for
 * bookmarks hears something at least once per bookmark period, so once two bookmarks have shown
 * the server's period, silence for three of them is a stall; until then (or when that is longer)
 * the configured limit applies. The check runs on a timer that does not keep the process alive.
 */
export class Watchdog {
  private lastHeard = Date.now();
  private lastBookmark: number | undefined;
  private bookmarkPeriodMs: number | undefined;
  private open = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly limitMs: number,
    onSilent: () => void,
  ) {
    const checkEveryMs = Math.max(10, Math.min(1000, Math.floor(limitMs / 4)));
    this.timer = setInterval(() => {
      if (this.open && Date.now() - this.lastHeard > this.silenceLimitMs()) {
        this.open = false;
        onSilent();
      }
    }, checkEveryMs);
    this.timer.unref();
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
    clearInterval(this.timer);
  }
}
