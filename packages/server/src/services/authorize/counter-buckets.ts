/**
 * The purchase counters' buckets (migration 0019): per subject (the principal, the agent), per UTC minute, hour and
 * day of a live purchase's `decisions.now`, per currency, how many purchases and how much they spent. A live purchase
 * is an allowed `execute` whose outcome is not `failed` or `refunded` (purchase-counters.ts, the recount's rule).
 *
 * INVARIANT (maintained, not recounted): the transaction that writes a live purchase adds it to the six buckets of its
 * `now` (commit-decision.ts), the transaction that moves it to `failed` or `refunded` takes it out again
 * (record-outcome.ts), both with one upsert that adds a signed delta to the stored value (atomic on both databases:
 * two writers of one bucket cannot lose an update). On PostgreSQL the rows are written in key order (the VALUES'
 * order), so two writers of overlapping buckets wait on each other in one order only; every writer has taken its
 * spend-row locks before, and appends its audit entry after.
 *
 * Bucket starts are the ISO text of `decisions.now` cut to the minute, hour or day (UTC): text compared with text,
 * as the recount compares `now`. A purchase without an amount counts in the currency '' (a key cannot be null).
 *
 * A window [s, +infinity) (rows with a later `now` count too: an instance whose clock runs ahead must not escape the
 * count) is read as: the decisions of the partial minute at its start, exactly; the whole minutes up to the next
 * hour boundary; the whole hours up to the next day boundary; the days from there on (windowParts).
 */
import { sql } from 'kysely';

export type Span = 'minute' | 'hour' | 'day';
export type SubjectKind = 'principal' | 'agent';
export const SPANS: readonly Span[] = ['minute', 'hour', 'day'];
export const SPAN_MS: Readonly<Record<Span, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** The decisions the counters count (partial indexes of migration 0018 cover the first two terms). */
export const LIVE_PURCHASE = sql`decision = 'allow_with_constraints' and action = 'execute' and outcome not in ('failed', 'refunded')`;

/** Whether a decision being written is a live purchase (its outcome is then `reserved` or `none`). */
export function isLivePurchase(decision: string, action: string): boolean {
  return decision === 'allow_with_constraints' && action === 'execute';
}

/** The subject's column in `decisions`. */
export function subjectColumn(kind: SubjectKind): 'principal_entity_id' | 'actor_entity_id' {
  return kind === 'principal' ? 'principal_entity_id' : 'actor_entity_id';
}

/** The start of the bucket of `span` holding the instant `iso` (an ISO 8601 UTC text as `toISOString` writes it). */
export function bucketStart(span: Span, iso: string): string {
  if (span === 'minute') return `${iso.slice(0, 16)}:00.000Z`;
  if (span === 'hour') return `${iso.slice(0, 13)}:00:00.000Z`;
  return `${iso.slice(0, 10)}T00:00:00.000Z`;
}

/** The start of the bucket after the one starting at `start`. */
export function nextStart(span: Span, start: string): string {
  return new Date(Date.parse(start) + SPAN_MS[span]).toISOString();
}

const ceil = (ms: number, span: Span): number => Math.ceil(ms / SPAN_MS[span]) * SPAN_MS[span];
const iso = (ms: number): string => new Date(ms).toISOString();

/** [from, to) ranges of ISO text; `days` is unbounded above. */
export interface WindowParts {
  /** the window's start */
  since: string;
  /** decisions with `now` in [edge[0], edge[1]): read one by one */
  edge: readonly [string, string];
  minutes: readonly [string, string];
  hours: readonly [string, string];
  days: string;
}

/** The window [sinceMs, +infinity) as the parts it is read in (at most 59 minutes, 23 hours, then days). */
export function windowParts(sinceMs: number): WindowParts {
  const m = ceil(sinceMs, 'minute');
  const h = ceil(m, 'hour');
  const d = ceil(h, 'day');
  return {
    since: iso(sinceMs),
    edge: [iso(sinceMs), iso(m)],
    minutes: [iso(m), iso(h)],
    hours: [iso(h), iso(d)],
    days: iso(d),
  };
}

/** The first instant of the UTC day of `ms`: every bucket the windows of a read can need starts at or after it. */
export function dayFloor(ms: number): string {
  return iso(Math.floor(ms / SPAN_MS.day) * SPAN_MS.day);
}

/** One live purchase as the buckets see it. */
export interface CountedPurchase {
  principal_entity_id: string;
  actor_entity_id: string;
  /** `decisions.now` */
  now: string;
  currency: string | null;
  amount_minor: number | string | null;
}

export interface BucketRow {
  subject_kind: SubjectKind;
  subject_id: string;
  span: Span;
  bucket_start: string;
  currency: string;
  purchases: number | string;
  spend_minor: number | string;
}

/** The six buckets of a purchase, in key order (the order the upsert locks them in). */
export function bucketsOf(p: CountedPurchase): Array<Omit<BucketRow, 'purchases' | 'spend_minor'>> {
  const subjects: Array<[SubjectKind, string]> = [
    ['agent', p.actor_entity_id],
    ['principal', p.principal_entity_id],
  ];
  const out = subjects.flatMap(([kind, id]) =>
    SPANS.map((span) => ({
      subject_kind: kind,
      subject_id: id,
      span,
      bucket_start: bucketStart(span, p.now),
      currency: p.currency ?? '',
    })),
  );
  const key = (b: (typeof out)[number]) =>
    `${b.subject_kind}\u0000${b.subject_id}\u0000${b.span}\u0000${b.bucket_start}`;
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The arguments of counter-statements.ts MOVE_BUCKETS: one purchase added (`sign` 1) or taken out (-1). */
export function moveArgs(purchase: CountedPurchase, sign: 1 | -1): Record<string, unknown> {
  const minor = Number(purchase.amount_minor ?? 0) * sign;
  const args: Record<string, unknown> = {};
  bucketsOf(purchase).forEach((b, row) => {
    Object.assign(args, {
      [`subject_kind_${row}`]: b.subject_kind,
      [`subject_id_${row}`]: b.subject_id,
      [`span_${row}`]: b.span,
      [`bucket_start_${row}`]: b.bucket_start,
      [`currency_${row}`]: b.currency,
      [`purchases_${row}`]: sign,
      [`spend_minor_${row}`]: minor,
    });
  });
  return args;
}

const STARTS = new Map<string, readonly string[]>();

/**
 * Every start of `span` in [from, to), a range inside one hour (minutes) or one day (hours), as windowParts makes
 * them: the starts differ only in their two digits, written without a Date for each, and kept for the next reads
 * (a window's range moves once a minute; bounded).
 */
export function startsIn(span: 'minute' | 'hour', [from, to]: readonly [string, string]): readonly string[] {
  const key = `${span}${from}${to}`;
  let starts = STARTS.get(key);
  if (starts) return starts;
  const out: string[] = [];
  const at = span === 'minute' ? 14 : 11;
  const head = from.slice(0, at);
  const tail = from.slice(at + 2);
  for (let n = Number(from.slice(at, at + 2)); from < to && n < (span === 'minute' ? 60 : 24); n++) {
    const start = `${head}${n < 10 ? '0' : ''}${n}${tail}`;
    if (start >= to) break;
    out.push(start);
  }
  if (STARTS.size >= 64) STARTS.clear();
  STARTS.set(key, (starts = out));
  return starts;
}
