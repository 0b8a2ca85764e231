/**
 * The purchase counters' hot statements, prepared once per dialect (store/prepared-query.ts): building and compiling
 * them at every decision cost more than running them. Their shapes are fixed: the principal's three windows (1 h,
 * 24 h, 30 d) and the agent's two (1 h, 24 h), each read as counter-buckets.ts windowParts says; the upsert of a
 * purchase's six buckets.
 */
import { sql, type Compilable, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../store/index.ts';
import { prepareQuery } from '../../store/prepared-query.ts';
import { LIVE_PURCHASE, subjectColumn, type BucketRow, type SubjectKind, type WindowParts } from './counter-buckets.ts';

/** the windows of each subject, in the order the arguments name them */
export const WINDOW_COUNT: Readonly<Record<SubjectKind, number>> = { principal: 3, agent: 2 };

/** A row of the windows' read: 0 a bucket, 1 a decision of a window's edge, 2 the merchant probe (`n`). */
export interface WindowRow {
  k: number | string;
  sk: string;
  span: string;
  at: string;
  currency: string | null;
  n: number | string;
  minor: number | string | null;
}

const KINDS: readonly SubjectKind[] = ['principal', 'agent'];
/** each window's arguments (the subject's id once per branch: a placeholder binds one position) */
const WINDOW_PARTS = [
  'edge_id',
  'edge_from',
  'edge_to',
  'minutes_id',
  'minutes_from',
  'minutes_to',
  'hours_id',
  'hours_from',
  'hours_to',
] as const;

function windowNames(): string[] {
  const names = ['merchant_principal', 'merchant_id'];
  for (const kind of KINDS) {
    names.push(`${kind}_days_id`, `${kind}_days`);
    for (let i = 0; i < WINDOW_COUNT[kind]; i++) {
      for (const part of WINDOW_PARTS) {
        names.push(`${kind}_${i}_${part}`);
      }
    }
  }
  return names;
}

/**
 * Every bucket of the windows (minutes and hours of each window's own range, days from the earliest window's), the
 * decisions of each window's edge, and whether the principal ever bought at the merchant: one statement.
 */
export const READ_WINDOWS = prepareQuery<Record<string, unknown>, WindowRow>(windowNames(), (db, a) => {
  // one branch per range (a union, not an `or`): each is a range of an index (the buckets' primary key, the
  // principal's or the actor's purchases of migration 0018), never a walk over all of a subject's rows
  const branches: RawBuilder<unknown>[] = [];
  for (const kind of KINDS) {
    const bucket = (span: string, id: unknown, range: RawBuilder<unknown>) =>
      sql`select 0 as k, subject_kind as sk, span, bucket_start as at, currency, purchases as n,
          spend_minor as minor from purchase_counter_buckets
        where subject_kind = ${sql.lit(kind)} and subject_id = ${id} and span = ${sql.lit(span)} and ${range}`;
    for (let i = 0; i < WINDOW_COUNT[kind]; i++) {
      const v = (part: string) => a[`${kind}_${i}_${part}`];
      branches.push(
        bucket(
          'minute',
          v('minutes_id'),
          sql`bucket_start >= ${v('minutes_from')} and bucket_start < ${v('minutes_to')}`,
        ),
      );
      branches.push(
        bucket('hour', v('hours_id'), sql`bucket_start >= ${v('hours_from')} and bucket_start < ${v('hours_to')}`),
      );
      branches.push(sql`select 1, ${sql.lit(kind)}, '', now, currency, 1, amount_minor from decisions
        where ${sql.ref(subjectColumn(kind))} = ${v('edge_id')} and ${LIVE_PURCHASE}
          and now >= ${v('edge_from')} and now < ${v('edge_to')}`);
    }
    branches.push(bucket('day', a[`${kind}_days_id`], sql`bucket_start >= ${a[`${kind}_days`]}`));
  }
  branches.push(sql`select 2, '', '', '', '', (select count(*) from (select 1 from decisions
      where principal_entity_id = ${a.merchant_principal} and merchant_id = ${a.merchant_id}
      and ${LIVE_PURCHASE} limit 1) m), 0`);
  return compilable(db, sql<WindowRow>`${sql.join(branches, sql` union all `)}`);
});

/** the argument names of each subject's window `i`, made once */
const PART_NAMES: Readonly<
  Record<SubjectKind, ReadonlyArray<Readonly<Record<(typeof WINDOW_PARTS)[number], string>>>>
> = Object.fromEntries(
  KINDS.map((kind) => [
    kind,
    Array.from({ length: WINDOW_COUNT[kind] }, (_, i) =>
      Object.fromEntries(WINDOW_PARTS.map((part) => [part, `${kind}_${i}_${part}`])),
    ),
  ]),
) as never;

/** The arguments of READ_WINDOWS. */
export function readWindowsArgs(
  subjects: ReadonlyArray<{ kind: SubjectKind; id: string; parts: readonly WindowParts[] }>,
  principal: string,
  merchant: string | null,
): Record<string, unknown> {
  const args: Record<string, unknown> = { merchant_principal: principal, merchant_id: merchant };
  for (const s of subjects) {
    let days = s.parts[0]!.days;
    for (let i = 0; i < s.parts.length; i++) {
      const p = s.parts[i]!;
      const n = PART_NAMES[s.kind][i]!;
      if (p.days < days) days = p.days;
      args[n.edge_id] = s.id;
      args[n.edge_from] = p.edge[0];
      args[n.edge_to] = p.edge[1];
      args[n.minutes_id] = s.id;
      args[n.minutes_from] = p.minutes[0];
      args[n.minutes_to] = p.minutes[1];
      args[n.hours_id] = s.id;
      args[n.hours_from] = p.hours[0];
      args[n.hours_to] = p.hours[1];
    }
    args[`${s.kind}_days_id`] = s.id;
    args[`${s.kind}_days`] = days;
  }
  return args;
}

const BUCKET_COLUMNS = ['subject_kind', 'subject_id', 'span', 'bucket_start', 'currency', 'purchases', 'spend_minor'];

/**
 * Adds a signed delta to six buckets (in key order: counter-buckets.ts bucketsOf; arguments from moveArgs), returning
 * their values once moved.
 */
export const MOVE_BUCKETS = prepareQuery<Record<string, unknown>, BucketRow>(
  Array.from({ length: 6 }, (_, row) => BUCKET_COLUMNS.map((c) => `${c}_${row}`)).flat(),
  (db, a) =>
    compilable(
      db,
      sql<BucketRow>`insert into purchase_counter_buckets (${sql.join(BUCKET_COLUMNS.map((c) => sql.ref(c)))})
        values ${sql.join(
          Array.from({ length: 6 }, (_, row) => sql`(${sql.join(BUCKET_COLUMNS.map((c) => a[`${c}_${row}`]))})`),
        )}
        on conflict (subject_kind, subject_id, span, bucket_start, currency) do update set
          purchases = purchase_counter_buckets.purchases + excluded.purchases,
          spend_minor = purchase_counter_buckets.spend_minor + excluded.spend_minor
        returning subject_kind, subject_id, span, bucket_start, currency, purchases, spend_minor`,
    ),
);

/** a raw statement as prepareQuery takes it (compiled for `db`'s dialect) */
function compilable<Row>(db: Kysely<Database>, raw: RawBuilder<Row>): Compilable<Row> {
  return { compile: () => raw.compile(db) };
}
