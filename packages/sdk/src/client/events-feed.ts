/**
 * The events feed (`GET /v1/events`) as an async iterator of envelopes, in commit order, for pull consumers.
 * Resuming: `feed.cursor` is the exact position after the last envelope the loop received (that envelope's
 * `event_id`, which the service accepts as `after`, or the page's `next_cursor` once a page is used up); store it
 * after processing an envelope and pass it as `after` next time: nothing is skipped, nothing is read twice. The feed
 * always answers `next_cursor`, also at its end, so a consumer that reached the end resumes there.
 * With `follow`, the iterator polls at `pollIntervalMs` once it has caught up, until `signal` aborts.
 */

export interface EventEnvelope {
  event_id: string;
  event_type: string;
  [member: string]: unknown;
}

export interface EventsPage {
  items: EventEnvelope[];
  next_cursor: string;
  has_more: boolean;
}

export interface EventsFeedOptions {
  /** a `next_cursor`, or the `event_id` of the last event processed; omitted: from the beginning */
  after?: string | undefined;
  /** only this type (`ns.authority.revoked`) */
  eventType?: string | undefined;
  /** page size, 1-500 */
  limit?: number | undefined;
  /** keep polling at the end of the feed instead of finishing */
  follow?: boolean | undefined;
  /** default 5000 */
  pollIntervalMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

export type FetchEventsPage = (after: string | undefined, signal: AbortSignal | undefined) => Promise<EventsPage>;

export class EventsFeed implements AsyncIterable<EventEnvelope> {
  #cursor: string | undefined;
  readonly #fetchPage: FetchEventsPage;
  readonly #options: EventsFeedOptions;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(
    fetchPage: FetchEventsPage,
    options: EventsFeedOptions,
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ) {
    this.#fetchPage = fetchPage;
    this.#options = options;
    this.#sleep = sleep;
    this.#cursor = options.after;
  }

  /** where to resume: pass it as `after` (undefined only before anything was read from the beginning) */
  get cursor(): string | undefined {
    return this.#cursor;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<EventEnvelope, void, undefined> {
    const { follow = false, pollIntervalMs = 5_000, signal } = this.#options;
    for (;;) {
      if (signal?.aborted) return;
      let page: EventsPage;
      try {
        page = await this.#fetchPage(this.#cursor, signal);
      } catch (error) {
        // the caller's abort ends the feed quietly; the cursor still says where to resume
        if (signal?.aborted) return;
        throw error;
      }
      for (const envelope of page.items) {
        // the envelope's id is a position the service accepts: a consumer that stops here resumes right after it
        this.#cursor = envelope.event_id;
        yield envelope;
      }
      this.#cursor = page.next_cursor;
      if (page.has_more) continue;
      if (!follow) return;
      try {
        await this.#sleep(pollIntervalMs, signal);
      } catch (error) {
        if (signal?.aborted) return;
        throw error;
      }
    }
  }
}
