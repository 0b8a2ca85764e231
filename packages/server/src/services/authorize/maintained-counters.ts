/**
 * `facts.counters` read from the maintained buckets (counter-buckets.ts) in authorize: the same facts as the recount
 * of purchase-counters.ts (`readPurchaseCounters`, the reference: backtests and the tests use it), in O(buckets of
 * the windows) instead of O(purchases in 30 days). Runs in the decision's transaction, under the principal's and the
 * agent's locks (lockPurchaseCounters), like the recount.
 *
 * TRUST (issue 26): the buckets are derived state that someone with the database but not the key could lower (or
 * delete) to pass a velocity or spend rule. The decisions they are derived from are what `GET /v1/audit/verify`
 * holds against the chain (check-decisions.ts), so a bucket is honoured only as far as the decisions back it:
 * - a subject's first read on this instance (or one further back than it knows) recounts its buckets from the
 *   decisions once (one statement, the subject's purchases since the UTC day its widest window starts in) and
 *   refuses one that differs; the memory (counter-memory.ts) then knows every bucket from that day on, empty ones too;
 * - every later read compares each bucket of its windows with the memory; one that differs (a value another instance
 *   moved, a write of a batch that rolled back, a forged or deleted row) is recomputed from its decisions, in the
 *   statement that reads it again (one snapshot: a concurrent writer cannot make the two disagree), and refused when
 *   it still differs: 503 `audit_unavailable` naming `purchase_counter_buckets`, the bucket and the column, nothing
 *   committed (chained-state.ts).
 * RESIDUAL (docs/audit.md): a bucket set back to exactly the value this instance last verified, after other
 * instances moved it on, is not recomputed here; verify's full run names it (check-purchase-counters.ts).
 */
import type { PurchaseCounters } from '@aar/core';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';
import { integrityFailure } from './chained-state.ts';
import {
  LIVE_PURCHASE,
  SPANS,
  bucketStart,
  dayFloor,
  moveArgs,
  nextStart,
  startsIn,
  subjectColumn,
  windowParts,
  type CountedPurchase,
  type Span,
  type SubjectKind,
  type WindowParts,
} from './counter-buckets.ts';
import { SubjectBuckets, sameValues, type CounterMemory, type CurrencyValues } from './counter-memory.ts';
import { MOVE_BUCKETS, READ_WINDOWS, readWindowsArgs, type WindowRow } from './counter-statements.ts';
import type { CounterParties } from './purchase-counters.ts';

const HOUR_MS = 3600_000;
const WINDOWS: Readonly<Record<SubjectKind, readonly number[]>> = {
  principal: [HOUR_MS, 24 * HOUR_MS, 30 * 24 * HOUR_MS],
  agent: [HOUR_MS, 24 * HOUR_MS],
};
/** past this many buckets differing from the memory, a subject is recounted whole (one statement either way) */
const RECHECK_LIMIT = 24;

interface Subject {
  kind: SubjectKind;
  id: string;
  parts: WindowParts[];
  /** the first instant whose buckets the windows can need */
  need: string;
}

type ReadRow = WindowRow;

/**
 * A live purchase just written (sign 1) or just moved to `failed` or `refunded` (sign -1): its buckets moved in this
 * transaction, and the memory told what they are now (remembered before the commit: if it fails, the next read
 * differs and recomputes them, a cost, never a false refusal).
 */
export async function maintainPurchaseCounters(
  trx: Transaction<Database>,
  memory: CounterMemory,
  purchase: CountedPurchase,
  sign: 1 | -1,
): Promise<void> {
  for (const row of (await MOVE_BUCKETS.execute(trx, moveArgs(purchase, sign))).rows) {
    memory.set(row.subject_kind, row.subject_id, row.span, row.bucket_start, row.currency, {
      purchases: Number(row.purchases),
      spend: Number(row.spend_minor),
    });
  }
}

/** The counters at `now` (authorize: `before` is never given here), refusing buckets the decisions do not back. */
export async function readMaintainedCounters(
  trx: Transaction<Database>,
  memory: CounterMemory,
  parties: CounterParties,
  now: Date,
): Promise<PurchaseCounters> {
  const t = now.getTime();
  const subjects: Subject[] = [
    { kind: 'principal', id: parties.principal_entity_id },
    { kind: 'agent', id: parties.actor_entity_id },
  ].map(({ kind, id }) => {
    const windows = WINDOWS[kind as SubjectKind];
    return {
      kind: kind as SubjectKind,
      id,
      parts: windows.map((w) => windowParts(t - w)),
      need: dayFloor(t - Math.max(...windows)),
    };
  });
  const unknown = subjects.filter((s) => !memory.subject(s.kind, s.id, s.need));
  if (unknown.length > 0) await recount(trx, memory, unknown);

  const rows = (
    await READ_WINDOWS.execute(trx, readWindowsArgs(subjects, parties.principal_entity_id, parties.merchant_id ?? null))
  ).rows;
  const values = new Map<SubjectKind, SubjectBuckets>();
  for (const s of subjects) values.set(s.kind, await verified(trx, memory, s, rows));

  const edges = {
    principal: rows.filter((r) => Number(r.k) === 1 && r.sk === 'principal'),
    agent: rows.filter((r) => Number(r.k) === 1 && r.sk === 'agent'),
  };
  const count = (kind: SubjectKind, window: number, currency?: string) =>
    sumWindow(subjects[kind === 'principal' ? 0 : 1]!.parts[window]!, values.get(kind)!, edges[kind], currency);
  const seen = Number(rows.find((r) => Number(r.k) === 2)?.n ?? 0);
  const currency = parties.currency;
  return {
    purchases_1h: count('principal', 0).purchases,
    purchases_24h: count('principal', 1).purchases,
    spend_24h_minor: currency === undefined ? 0 : count('principal', 1, currency).spend,
    spend_30d_minor: currency === undefined ? 0 : count('principal', 2, currency).spend,
    // a request without a merchant has no first purchase at one
    merchant_first_purchase: parties.merchant_id !== undefined && seen === 0,
    agent_purchases_1h: count('agent', 0).purchases,
    agent_purchases_24h: count('agent', 1).purchases,
  };
}

/** One window's purchases (all currencies) and spend (in `currency` only; none when absent). */
function sumWindow(
  parts: WindowParts,
  buckets: SubjectBuckets,
  edges: readonly ReadRow[],
  currency: string | undefined,
): { purchases: number; spend: number } {
  let purchases = 0;
  let spend = 0;
  const add = (values: CurrencyValues | undefined) => {
    for (const [c, v] of values ?? []) {
      purchases += v.purchases;
      if (c === currency) spend += v.spend;
    }
  };
  for (const row of edges) {
    if (row.at < parts.edge[0] || row.at >= parts.edge[1]) continue;
    purchases += 1;
    if ((row.currency ?? '') === currency) spend += Number(row.minor ?? 0);
  }
  for (const start of startsIn('minute', parts.minutes)) add(buckets.get('minute', start));
  for (const start of startsIn('hour', parts.hours)) add(buckets.get('hour', start));
  for (const [start, values] of buckets.spans.day) if (start >= parts.days) add(values);
  return { purchases, spend };
}

/**
 * A read's buckets, each as the memory knows it or, where it differs, as recomputed from the decisions: refused when
 * the stored bucket still differs. Returns the values the windows are summed from.
 */
async function verified(
  trx: Transaction<Database>,
  memory: CounterMemory,
  s: Subject,
  rows: readonly ReadRow[],
): Promise<SubjectBuckets> {
  const stored = bucketsOfRows(rows.filter((r) => Number(r.k) === 0 && r.sk === s.kind));
  const known = memory.subject(s.kind, s.id, s.need) ?? new SubjectBuckets(s.need);
  const differing: Array<[Span, string]> = [];
  const compare = (span: Span, start: string) => {
    if (!sameValues(stored.get(span, start), known.get(span, start))) differing.push([span, start]);
  };
  for (const p of s.parts) {
    for (const start of startsIn('minute', p.minutes)) compare('minute', start);
    for (const start of startsIn('hour', p.hours)) compare('hour', start);
  }
  const days = s.parts.map((p) => p.days).sort()[0]!;
  const dayStarts = new Set([...stored.spans.day.keys(), ...known.spans.day.keys()].filter((d) => d >= days));
  for (const start of dayStarts) compare('day', start);
  if (differing.length === 0) return stored;
  if (differing.length > RECHECK_LIMIT) {
    // many buckets moved elsewhere (another instance): the whole subject once, then the memory holds its buckets
    return (await recount(trx, memory, [s]))[0]!;
  }
  const again = await recheck(trx, s, differing);
  for (const [span, start] of differing) {
    const values = again.get(span, start) ?? new Map();
    memory.replace(s.kind, s.id, span, start, values);
    stored.spans[span].set(start, values);
  }
  return stored;
}

/**
 * Recounts the subjects' buckets from `need` on from their decisions, refusing a stored bucket that differs, and
 * makes them the memory's. One statement: the buckets and the decisions of one snapshot.
 */
async function recount(
  trx: Transaction<Database>,
  memory: CounterMemory,
  subjects: readonly Subject[],
): Promise<SubjectBuckets[]> {
  const branches = subjects.flatMap((s) => [
    sql`select 0 as k, subject_kind as sk, span, bucket_start as at, currency, purchases as n, spend_minor as minor
      from purchase_counter_buckets where subject_kind = ${s.kind} and subject_id = ${s.id}
        and span in ('minute', 'hour', 'day') and bucket_start >= ${s.need}`,
    sql`select 1, cast(${s.kind} as text), '', now, currency, 1, amount_minor from decisions
      where ${sql.ref(subjectColumn(s.kind))} = ${s.id} and ${LIVE_PURCHASE} and now >= ${s.need}`,
  ]);
  const rows = (await sql<ReadRow>`${sql.join(branches, sql` union all `)}`.execute(trx)).rows;
  return subjects.map((s) => {
    const stored = bucketsOfRows(rows.filter((r) => Number(r.k) === 0 && r.sk === s.kind));
    const computed = new SubjectBuckets(s.need);
    for (const r of rows) {
      if (Number(r.k) !== 1 || r.sk !== s.kind) continue;
      for (const span of SPANS) addTo(computed, span, bucketStart(span, r.at), r.currency ?? '', 1, r.minor);
    }
    assertSame(s, stored, computed);
    memory.cover(s.kind, s.id, s.need, computed.spans);
    return computed;
  });
}

/** The given buckets of one subject read again and recomputed from their decisions (one statement), refused if apart. */
async function recheck(
  trx: Transaction<Database>,
  s: Subject,
  buckets: ReadonlyArray<[Span, string]>,
): Promise<SubjectBuckets> {
  const keys = buckets.map(([span, start]) => sql`(span = ${span} and bucket_start = ${start})`);
  const ranges = buckets.map(([span, start]) => sql`(now >= ${start} and now < ${nextStart(span, start)})`);
  const rows = (
    await sql<ReadRow>`select 0 as k, subject_kind as sk, span, bucket_start as at, currency, purchases as n,
        spend_minor as minor from purchase_counter_buckets
      where subject_kind = ${s.kind} and subject_id = ${s.id} and (${sql.join(keys, sql` or `)})
      union all
      select 1, cast(${s.kind} as text), '', now, currency, 1, amount_minor from decisions
      where ${sql.ref(subjectColumn(s.kind))} = ${s.id} and ${LIVE_PURCHASE} and (${sql.join(ranges, sql` or `)})`.execute(
      trx,
    )
  ).rows;
  const stored = bucketsOfRows(rows.filter((r) => Number(r.k) === 0));
  const computed = new SubjectBuckets(s.need);
  const wanted = new Set(buckets.map(([span, start]) => `${span} ${start}`));
  for (const r of rows) {
    if (Number(r.k) !== 1) continue;
    for (const span of SPANS) {
      const start = bucketStart(span, r.at);
      if (wanted.has(`${span} ${start}`)) addTo(computed, span, start, r.currency ?? '', 1, r.minor);
    }
  }
  for (const [span, start] of buckets) assertBucket(s, span, start, stored.get(span, start), computed.get(span, start));
  return computed;
}

function bucketsOfRows(rows: readonly ReadRow[]): SubjectBuckets {
  const out = new SubjectBuckets('');
  for (const r of rows) addTo(out, r.span as Span, r.at, r.currency ?? '', Number(r.n), r.minor);
  return out;
}

function addTo(
  out: SubjectBuckets,
  span: Span,
  start: string,
  currency: string,
  purchases: number,
  minor: number | string | null,
): void {
  if (!SPANS.includes(span)) return; // a span no writer writes: left to verify (check-purchase-counters.ts)
  const map = out.spans[span];
  let values = map.get(start);
  if (!values) map.set(start, (values = new Map()));
  const v = values.get(currency) ?? { purchases: 0, spend: 0 };
  values.set(currency, { purchases: v.purchases + purchases, spend: v.spend + Number(minor ?? 0) });
}

function assertSame(s: Subject, stored: SubjectBuckets, computed: SubjectBuckets): void {
  for (const span of SPANS) {
    for (const start of new Set([...stored.spans[span].keys(), ...computed.spans[span].keys()])) {
      assertBucket(s, span, start, stored.get(span, start), computed.get(span, start));
    }
  }
}

function assertBucket(
  s: Subject,
  span: Span,
  start: string,
  stored: CurrencyValues | undefined,
  computed: CurrencyValues | undefined,
): void {
  if (sameValues(stored, computed)) return;
  for (const currency of new Set([...(stored?.keys() ?? []), ...(computed?.keys() ?? [])])) {
    const a = stored?.get(currency) ?? { purchases: 0, spend: 0 };
    const b = computed?.get(currency) ?? { purchases: 0, spend: 0 };
    if (a.purchases === b.purchases && a.spend === b.spend) continue;
    throw integrityFailure(
      'purchase_counter_buckets',
      `${s.kind} ${s.id} ${span} ${start} ${currency}`,
      a.purchases !== b.purchases ? 'purchases' : 'spend_minor',
    );
  }
}
